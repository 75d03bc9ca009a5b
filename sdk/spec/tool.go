package spec

import (
	"context"
	"encoding/json"
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
