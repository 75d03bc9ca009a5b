package sdktest

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"testing"

	"github.com/axonhq/axon/sdk"
)

// ToolSuite describes a tool plugin to ToolConformance.
type ToolSuite struct {
	New      func() sdk.Tool
	Config   json.RawMessage
	Upstream http.Handler // routes the plugin's egress, when it has any
	// Calls are sample invocations; Check, when set, inspects the result.
	Calls []ToolCase
}

// ToolCase is one sample call.
type ToolCase struct {
	Name  string
	Input json.RawMessage
	Check func(t *testing.T, r sdk.ToolResult)
}

var toolNameRE = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// ToolConformance runs the checks every tool plugin must pass: Info is well
// formed; every tool has a name models accept, a description, an object JSON
// Schema and a side-effect class; sample calls succeed and echo the call id;
// an unknown tool name is refused (an error or an IsError result, never a
// crash).
func ToolConformance(t *testing.T, s ToolSuite) {
	t.Helper()
	var egress sdk.Egress
	if s.Upstream != nil {
		egress = NewFakeEgress(t, s.Upstream)
	}
	conn := Serve(t, sdk.KindTool, s.New(), s.Config, egress)
	t.Run("info", func(t *testing.T) { checkInfo(t, sdk.KindTool, conn.Info) })
	tool := conn.Tool(t)
	ctx := context.Background()

	t.Run("tools", func(t *testing.T) {
		specs, err := tool.Tools(ctx)
		if err != nil {
			t.Fatalf("Tools: %v", err)
		}
		if len(specs) == 0 {
			t.Fatal("no tools")
		}
		for _, sp := range specs {
			if !toolNameRE.MatchString(sp.Name) {
				t.Errorf("tool %q: name must match %s", sp.Name, toolNameRE)
			}
			if sp.Description == "" {
				t.Errorf("tool %q: no description", sp.Name)
			}
			var schema struct {
				Type string `json:"type"`
			}
			if err := json.Unmarshal(sp.InputSchema, &schema); err != nil || schema.Type != "object" {
				t.Errorf("tool %q: input schema must be a JSON Schema object, got %s", sp.Name, sp.InputSchema)
			}
			switch sp.SideEffect {
			case sdk.SideEffectNone, sdk.SideEffectIdempotent, sdk.SideEffectUnsafe:
			default:
				t.Errorf("tool %q: side effect %q is not none, idempotent or unsafe", sp.Name, sp.SideEffect)
			}
		}
	})

	for i, c := range s.Calls {
		t.Run("call "+c.Name, func(t *testing.T) {
			id := "conformance-" + c.Name
			res, err := tool.Call(ctx, sdk.Invocation{CallID: id, Name: c.Name, Input: c.Input, IdempotencyKey: "run:" + id})
			if err != nil {
				t.Fatalf("call %d (%s): %v", i, c.Name, err)
			}
			if res.CallID != id {
				t.Errorf("result call id %q, want %q", res.CallID, id)
			}
			if c.Check != nil {
				c.Check(t, res)
			}
		})
	}

	t.Run("unknown tool", func(t *testing.T) {
		res, err := tool.Call(ctx, sdk.Invocation{CallID: "x", Name: "no-such-tool-conformance", Input: json.RawMessage(`{}`)})
		if err == nil && !res.IsError {
			t.Fatal("calling an unknown tool succeeded")
		}
	})
}
