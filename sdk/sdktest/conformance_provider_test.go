package sdktest

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/axonhq/axon/sdk"
)

// lines is a provider that sends one text delta per line of the upstream's
// reply. A careless one swallows a failing sink and reports a cancelled
// read as a transient upstream failure.
type lines struct {
	egress   sdk.Egress
	careless bool
}

func (l *lines) Info() sdk.Info { return sdk.Info{Name: "lines", Version: "0"} }
func (l *lines) Configure(_ context.Context, c sdk.Config) error {
	l.egress = c.Egress
	return nil
}
func (l *lines) Generate(ctx context.Context, _ *sdk.Request, out sdk.Sink) error {
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, "https://api.example.com/v1/lines", nil)
	if err != nil {
		return err
	}
	resp, err := sdk.HTTPClient(l.egress).Do(hr)
	if err != nil {
		return fmt.Errorf("lines: %w", err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if err := out.Send(ctx, sdk.Event{Type: sdk.EventTextDelta, Text: sc.Text()}); err != nil {
			if l.careless {
				return nil
			}
			return fmt.Errorf("lines: %w", err)
		}
	}
	if err := sc.Err(); err != nil {
		if l.careless || ctx.Err() == nil {
			return sdk.Transientf("lines: read failed")
		}
		return fmt.Errorf("lines: %w", ctx.Err())
	}
	return out.Send(ctx, sdk.Event{Type: sdk.EventFinish, Finish: sdk.FinishStop})
}

// twoLines answers in two writes, so a held upstream delivers only the first.
var twoLines = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
	w.Write([]byte("Hello\n"))
	w.Write([]byte("world\n"))
})

// TestStopChecks runs the cancel and sink-error checks against a provider
// that passes them and one that does not, in-process and over gRPC (where
// the host side returns the caller's error whatever the plugin does).
func TestStopChecks(t *testing.T) {
	t.Parallel()
	checks := map[string]func(testing.TB, http.Handler, *sdk.Request, func(testing.TB, http.Handler) generator){
		"cancel mid-stream": checkCancelMidStream,
		"sink error":        checkSinkError,
	}
	tests := []struct {
		name     string
		careless bool
		grpc     bool
		want     map[string]string // check → substring of its one failure; absent: none
	}{
		{"in-process", false, false, nil},
		{"over grpc", false, true, nil},
		{"careless in-process", true, false, map[string]string{
			"cancel mid-stream": "want context.Canceled",
			"sink error":        "want the sink's error",
		}},
		{"careless over grpc", true, true, nil},
	}
	for _, tc := range tests {
		for name, check := range checks {
			t.Run(tc.name+"/"+name, func(t *testing.T) {
				t.Parallel()
				s := ProviderSuite{New: func() sdk.Provider { return &lines{careless: tc.careless} }}
				open := func(tb testing.TB, upstream http.Handler) generator {
					if tc.grpc {
						return Serve(tb, sdk.KindProvider, s.New(), nil, NewFakeEgress(tb, upstream)).Provider(tb)
					}
					return configureDirect(tb, s, NewFakeEgress(tb, upstream))
				}
				errs := failures(t, func(tb testing.TB) { check(tb, twoLines, &sdk.Request{}, open) })
				want, fails := tc.want[name]
				switch {
				case !fails && len(errs) != 0:
					t.Errorf("failures %q, want none", errs)
				case fails && (len(errs) != 1 || !strings.Contains(errs[0], want)):
					t.Errorf("failures %q, want one mentioning %q", errs, want)
				}
			})
		}
	}
}
