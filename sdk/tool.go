package sdk

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
)

// SideEffect classifies what calling a tool does to the world. The agent loop
// uses it to decide whether an interrupted call may run again.
type SideEffect string

const (
	SideEffectNone       SideEffect = "none"       // pure: may be re-run freely
	SideEffectIdempotent SideEffect = "idempotent" // repeating with the same key is harmless
	SideEffectUnsafe     SideEffect = "unsafe"     // repeating is a visible double effect
)

// ToolSpec describes a tool to the model.
type ToolSpec struct {
	Name        string
	Description string
	InputSchema json.RawMessage // a JSON Schema object
	SideEffect  SideEffect
	Cache       Cache // a cache breakpoint after this tool's definition
}

// Invocation is one call of a tool.
type Invocation struct {
	CallID         string
	Name           string
	Input          json.RawMessage
	IdempotencyKey string // "run_id:call_id", stable across retries
}

// Tool serves one or more tools.
type Tool interface {
	Plugin
	Tools(ctx context.Context) ([]ToolSpec, error)
	// Call runs one tool. A failure the model should see is a ToolResult
	// with IsError; a returned error is an infrastructure failure.
	Call(ctx context.Context, inv Invocation) (ToolResult, error)
}

// Decode reads the call's JSON arguments into v. Unknown fields are
// refused, so a misspelt argument is reported to the model, not ignored.
// Empty or null input leaves v as it is.
func (inv Invocation) Decode(v any) error {
	raw := bytes.TrimSpace(inv.Input)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return fmt.Errorf("invalid arguments: %w", err)
	}
	return nil
}

// Result is a successful result carrying text.
func (inv Invocation) Result(text string) ToolResult {
	return ToolResult{CallID: inv.CallID, Name: inv.Name, Content: []Part{Text{Text: text}}}
}

// JSON is a successful result carrying v encoded as JSON text.
func (inv Invocation) JSON(v any) ToolResult {
	b, err := json.Marshal(v)
	if err != nil {
		return inv.Errorf("encode result: %v", err)
	}
	return inv.Result(string(b))
}

// Errorf is a result the model sees as a failure (IsError), for problems
// the model can act on: bad arguments, a page that does not exist.
func (inv Invocation) Errorf(format string, args ...any) ToolResult {
	r := inv.Result(fmt.Sprintf(format, args...))
	r.IsError = true
	return r
}
