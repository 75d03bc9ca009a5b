package main

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/axonhq/axon/sdk"
)

// decodeInput reads a call's JSON arguments into v. Unknown fields are
// refused so a misspelt argument is reported, not ignored.
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

func success(inv sdk.Invocation, text string) sdk.ToolResult {
	return sdk.ToolResult{CallID: inv.CallID, Name: inv.Name, Content: []sdk.Part{sdk.Text{Text: text}}}
}

// failure is a result the model sees as an error.
func failure(inv sdk.Invocation, format string, args ...any) sdk.ToolResult {
	return sdk.ToolResult{CallID: inv.CallID, Name: inv.Name, IsError: true,
		Content: []sdk.Part{sdk.Text{Text: fmt.Sprintf(format, args...)}}}
}
