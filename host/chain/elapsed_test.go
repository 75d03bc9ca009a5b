package chain

import (
	"context"
	"testing"
	"time"

	"github.com/axonhq/axon/sdk"
)

// The Result times a Run for usage facts: the whole of it, and until the
// first content reached the client, across a failed attempt and a retry
// wait. A Buffered Run has no first-content time of its own.
func TestResultTimesTheRun(t *testing.T) {
	for _, tc := range []struct {
		name      string
		opts      []RunOption
		wantFirst time.Duration
	}{
		{name: "streamed", wantFirst: 100*time.Millisecond + 500*time.Millisecond + 300*time.Millisecond},
		{name: "buffered", opts: []RunOption{Buffered(0)}, wantFirst: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			clk := newFakeClock()
			p := &scripted{t: t, name: "glm", calls: [][]step{
				{advance(clk, 100*time.Millisecond), fail(classErr(sdk.ClassTransient, 503, 0))},
				{start("m"), advance(clk, 300*time.Millisecond), text("hi"), advance(clk, 50*time.Millisecond), finish(sdk.FinishStop)},
			}}
			c := &Chain{Name: "default", Clock: clk, Rand: fixedRand(0.5), Observer: NopObserver{},
				Policy: Policy{Attempts: 2, Backoff: 500 * time.Millisecond}, Hops: []Hop{{Name: "glm", Provider: p}}}
			res, err := c.Run(context.Background(), userRequest("q"), &recorder{}, nil, tc.opts...)
			if err != nil {
				t.Fatal(err)
			}
			if want := 950 * time.Millisecond; res.Elapsed != want {
				t.Errorf("Elapsed = %v, want %v", res.Elapsed, want)
			}
			if res.FirstContent != tc.wantFirst {
				t.Errorf("FirstContent = %v, want %v", res.FirstContent, tc.wantFirst)
			}
		})
	}
}
