package chain

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/axonhq/axon/sdk"
	"github.com/google/go-cmp/cmp"
)

func TestTrailString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		trail Trail
		want  string
	}{
		{"empty", nil, ""},
		{
			name:  "answer",
			trail: Trail{{Provider: "glm", Attempt: 1, Outcome: OutcomeOK, Latency: 1204 * time.Millisecond}},
			want:  "glm#1 ok t=1204ms",
		},
		{
			name: "retry, fallback, skip, answer",
			trail: Trail{
				{Provider: "glm", Attempt: 1, Outcome: OutcomeRetry, Class: sdk.ClassTransient, Status: 429, RetryAfter: 2 * time.Second, Latency: 310 * time.Millisecond},
				{Provider: "glm", Attempt: 2, Outcome: OutcomeFallback, Class: sdk.ClassTransient, Status: 529, Code: "overloaded", Wait: 2 * time.Second, Latency: 120 * time.Millisecond},
				{Provider: "small", Outcome: OutcomeSkip},
				{Provider: "ollama", Attempt: 1, Outcome: OutcomeOK, Latency: 1500 * time.Microsecond},
			},
			want: "glm#1 retry transient/429 hint=2000ms t=310ms, glm#2 fallback transient/529/overloaded wait=2000ms t=120ms, small skip, ollama#1 ok t=2ms",
		},
		{
			name:  "committed failure",
			trail: Trail{{Provider: "glm", Attempt: 1, Outcome: OutcomeStop, Class: sdk.ClassTransient, Code: CodeIdleTimeout, Committed: true, Latency: time.Minute}},
			want:  "glm#1 stop transient/idle_timeout committed t=60000ms",
		},
		{
			name:  "skipped upstream events",
			trail: Trail{{Provider: "glm", Attempt: 1, Outcome: OutcomeOK, Skipped: 3, Latency: 40 * time.Millisecond}},
			want:  "glm#1 ok skipped=3 t=40ms",
		},
		{
			name:  "code without a class",
			trail: Trail{{Provider: "glm", Attempt: 1, Outcome: OutcomeStop, Code: CodeCanceled}},
			want:  "glm#1 stop canceled t=0ms",
		},
		{
			name:  "names and codes cannot break the header",
			trail: Trail{{Provider: "my glm, eu\r\n", Attempt: 1, Outcome: OutcomeFallback, Class: "perm anent", Code: "a=b/ü"}},
			want:  "my_glm__eu__#1 fallback perm_anent/a_b___ t=0ms",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := tc.trail.String(); got != tc.want {
				t.Errorf("String():\n got %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestTrailJSON(t *testing.T) {
	t.Parallel()
	trail := Trail{
		{Provider: "glm", Attempt: 1, Outcome: OutcomeRetry, Class: sdk.ClassTransient, Status: 429, RetryAfter: time.Second, Latency: 3 * time.Millisecond},
		{Provider: "small", Outcome: OutcomeSkip},
		{Provider: "ollama", Attempt: 1, Outcome: OutcomeOK, Wait: time.Second, Latency: 5 * time.Millisecond},
	}
	b, err := json.Marshal(trail)
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"provider":"glm","attempt":1,"outcome":"retry","class":"transient","status":429,"retry_after_ns":1000000000,"latency_ns":3000000},` +
		`{"provider":"small","outcome":"skip","latency_ns":0},` +
		`{"provider":"ollama","attempt":1,"outcome":"ok","wait_ns":1000000000,"latency_ns":5000000}]`
	if string(b) != want {
		t.Errorf("JSON:\n got %s\nwant %s", b, want)
	}
	var back Trail
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(trail, back); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}
