package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/axonhq/axon/sdk"
	"github.com/axonhq/axon/sdk/sdktest"
)

// TestConformance runs the sdk tool suite over real go-plugin gRPC.
func TestConformance(t *testing.T) {
	values, _ := json.Marshal(map[string]string{"dir": t.TempDir()})
	check := func(want string) func(*testing.T, sdk.ToolResult) {
		return func(t *testing.T, r sdk.ToolResult) {
			if got := sdk.TextOf(r.Content); r.IsError || !strings.HasPrefix(got, want) {
				t.Errorf("result %q (error %v), want it to start with %q", got, r.IsError, want)
			}
		}
	}
	sdktest.ToolConformance(t, sdktest.ToolSuite{
		New:    func() sdk.Tool { return &notes{now: func() time.Time { return fixedNow }} },
		Config: values,
		Calls: []sdktest.ToolCase{
			{Name: toolAppend, Input: json.RawMessage(`{"title":"hello","text":"first note"}`),
				Check: check(`Appended to note "notes" at 2026-11-29T14:03:04+01:00.`)},
			{Name: toolList, Input: json.RawMessage(`{}`), Check: check("notes (")},
			{Name: toolRead, Input: json.RawMessage(`{"note":"notes"}`),
				Check: check("## 2026-11-29T14:03:04+01:00 — hello\n\nfirst note\n\n")},
		},
	})
}
