package main

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/axonhq/axon/sdk"
	"github.com/axonhq/axon/sdk/sdktest"
)

// TestConformance runs the sdk tool suite over real go-plugin gRPC.
func TestConformance(t *testing.T) {
	wantText := func(want string) func(*testing.T, sdk.ToolResult) {
		return func(t *testing.T, r sdk.ToolResult) {
			if got := sdk.TextOf(r.Content); r.IsError || got != want {
				t.Errorf("result %q (error %v), want %q", got, r.IsError, want)
			}
		}
	}
	sdktest.ToolConformance(t, sdktest.ToolSuite{
		New:    func() sdk.Tool { return &clock{now: func() time.Time { return fixedNow }} },
		Config: json.RawMessage(`{"zone":"America/Sao_Paulo"}`),
		Calls: []sdktest.ToolCase{
			{Name: toolNow, Input: json.RawMessage(`{}`),
				Check: wantText(`{"time":"2026-11-29T10:03:04-03:00","weekday":"Sunday","zone":"America/Sao_Paulo","abbreviation":"-03","utc_offset":"-03:00"}`)},
			{Name: toolConvert, Input: json.RawMessage(`{"time":"2026-11-29 10:00","to":"UTC"}`),
				Check: wantText(`{"from":{"time":"2026-11-29T10:00:00-03:00","weekday":"Sunday","zone":"America/Sao_Paulo","abbreviation":"-03","utc_offset":"-03:00"},` +
					`"to":{"time":"2026-11-29T13:00:00Z","weekday":"Sunday","zone":"UTC","abbreviation":"UTC","utc_offset":"+00:00"}}`)},
		},
	})
}
