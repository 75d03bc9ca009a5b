package main

import (
	"context"
	"encoding/json"
	"go/build"
	"slices"
	"testing"
	"time"

	"github.com/axonhq/axon/sdk"
)

// fixedNow is the injected clock: Sunday 2026-11-29 13:03:04 UTC.
var fixedNow = time.Date(2026, time.November, 29, 13, 3, 4, 0, time.UTC)

// newClock returns a configured clock that always reads at.
func newClock(t *testing.T, values string, at time.Time) *clock {
	t.Helper()
	c := &clock{now: func() time.Time { return at }}
	if err := c.Configure(context.Background(), sdk.Config{Values: json.RawMessage(values)}); err != nil {
		t.Fatalf("Configure(%s): %v", values, err)
	}
	return c
}

// call runs one tool and returns its text and error flag.
func call(t *testing.T, c *clock, name, input string) (string, bool) {
	t.Helper()
	res, err := c.Call(context.Background(), sdk.Invocation{CallID: "c1", Name: name, Input: json.RawMessage(input)})
	if err != nil {
		t.Fatalf("Call(%s, %s): %v", name, input, err)
	}
	if res.CallID != "c1" || res.Name != name {
		t.Errorf("result names call %q/%q, want c1/%s", res.CallID, res.Name, name)
	}
	return sdk.TextOf(res.Content), res.IsError
}

func TestConfigure(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		values   string
		wantZone string
		wantErr  bool
	}{
		{name: "default is the system zone", values: `{}`, wantZone: "Local"},
		{name: "named zone", values: `{"zone":"Asia/Kolkata"}`, wantZone: "Asia/Kolkata"},
		{name: "blank zone means default", values: `{"zone":""}`, wantZone: "Local"},
		{name: "unknown zone", values: `{"zone":"Mars/Olympus"}`, wantErr: true},
		{name: "path in zone", values: `{"zone":"../../etc/passwd"}`, wantErr: true},
		{name: "wrong type", values: `{"zone":5}`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := &clock{}
			err := c.Configure(context.Background(), sdk.Config{Values: json.RawMessage(tt.values)})
			if tt.wantErr {
				if err == nil {
					t.Fatalf("Configure(%s) succeeded, want an error", tt.values)
				}
				if sdk.ClassOf(err) != sdk.ClassPermanent {
					t.Errorf("error class %q, want permanent: %v", sdk.ClassOf(err), err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Configure(%s): %v", tt.values, err)
			}
			if got := c.zone.String(); got != tt.wantZone {
				t.Errorf("zone %q, want %q", got, tt.wantZone)
			}
		})
	}
}

func TestCallBeforeConfigure(t *testing.T) {
	t.Parallel()
	if _, err := (&clock{}).Call(context.Background(), sdk.Invocation{Name: toolNow}); err == nil {
		t.Fatal("Call before Configure succeeded")
	}
}

func TestUnknownTool(t *testing.T) {
	t.Parallel()
	text, isErr := call(t, newClock(t, `{"zone":"UTC"}`, fixedNow), "sundial", `{}`)
	if !isErr || text == "" {
		t.Fatalf("unknown tool: got %q (error %v), want an error result with a message", text, isErr)
	}
}

// TestTimeZoneDatabaseEmbedded: plugins start with an empty environment and
// a Pi image may lack /usr/share/zoneinfo, so the binary must carry its own
// database. The system one present here would hide its absence from a
// LoadLocation test, so check the import itself.
func TestTimeZoneDatabaseEmbedded(t *testing.T) {
	t.Parallel()
	pkg, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(pkg.Imports, "time/tzdata") {
		t.Errorf("the plugin does not import time/tzdata; imports: %v", pkg.Imports)
	}
}
