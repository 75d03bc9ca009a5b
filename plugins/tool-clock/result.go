package main

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/axonhq/axon/sdk"
)

// decodeInput reads a call's JSON arguments into v. Unknown fields are
// refused so a misspelt argument ("timezone") is reported, not ignored.
func decodeInput(raw json.RawMessage, v any) error {
	raw = bytes.TrimSpace(raw)
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

// success is a result carrying v as JSON text.
func success(inv sdk.Invocation, v any) sdk.ToolResult {
	b, err := json.Marshal(v)
	if err != nil {
		return failure(inv, "encode result: %v", err)
	}
	return sdk.ToolResult{CallID: inv.CallID, Name: inv.Name, Content: []sdk.Part{sdk.Text{Text: string(b)}}}
}

// failure is a result the model sees as an error.
func failure(inv sdk.Invocation, format string, args ...any) sdk.ToolResult {
	return sdk.ToolResult{CallID: inv.CallID, Name: inv.Name, IsError: true,
		Content: []sdk.Part{sdk.Text{Text: fmt.Sprintf(format, args...)}}}
}
