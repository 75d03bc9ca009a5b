package main

import (
	"encoding/json"
	"regexp"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/axonhq/axon/sdk"
)

// Bounds on what one tool's description and schema may take of the
// model's context.
const (
	maxDescription = 4 << 10
	maxSchema      = 64 << 10
)

// toolNameRE is the names every model API accepts; MCP allows more
// (dots, slashes), which a model could not call.
var toolNameRE = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// sideEffectOf reads a tool's MCP annotations: read-only is none,
// idempotent is idempotent, anything else, or no annotations at all, is
// unsafe. The hints are the server's word, so they can only make a call
// look safer than it is; side_effects in the block corrects them.
func sideEffectOf(a *mcp.ToolAnnotations) sdk.SideEffect {
	switch {
	case a == nil:
		return sdk.SideEffectUnsafe
	case a.ReadOnlyHint:
		return sdk.SideEffectNone
	case a.IdempotentHint:
		return sdk.SideEffectIdempotent
	}
	return sdk.SideEffectUnsafe
}

// toSpecs turns the server's tools into the host's, with overrides applied.
// A tool whose name a model could not call, or whose schema is oversized,
// is skipped and named in skipped.
func toSpecs(tools []*mcp.Tool, overrides map[string]sdk.SideEffect) (specs []sdk.ToolSpec, skipped []string) {
	for _, t := range tools {
		if t == nil {
			continue
		}
		if !toolNameRE.MatchString(t.Name) {
			skipped = append(skipped, t.Name)
			continue
		}
		schema, ok := inputSchema(t.InputSchema)
		if !ok {
			skipped = append(skipped, t.Name)
			continue
		}
		se := sideEffectOf(t.Annotations)
		if o, ok := overrides[t.Name]; ok {
			se = o
		}
		specs = append(specs, sdk.ToolSpec{Name: t.Name, Description: description(t), InputSchema: schema, SideEffect: se})
	}
	return specs, skipped
}

func description(t *mcp.Tool) string {
	d := t.Description
	if d == "" && t.Annotations != nil {
		d = t.Annotations.Title
	}
	if d == "" {
		d = t.Title
	}
	if d == "" {
		d = "The MCP server's tool " + t.Name + "."
	}
	return clean(d, maxDescription)
}

// inputSchema is the tool's schema as JSON: an object schema within
// maxSchema, or false.
func inputSchema(v any) (json.RawMessage, bool) {
	if v == nil {
		return json.RawMessage(`{"type":"object"}`), true
	}
	b, err := json.Marshal(v)
	if err != nil || len(b) > maxSchema {
		return nil, false
	}
	var head struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(b, &head) != nil || head.Type != "object" {
		return nil, false
	}
	return b, true
}
