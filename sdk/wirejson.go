package sdk

import (
	"bytes"
	"encoding/json"
	"errors"
)

// EncodeJSON marshals a request body without HTML escaping: prompts are
// not HTML, and "<" stays one byte instead of six.
func EncodeJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}), nil
}

// errNotObject is ToolInput's verdict.
var errNotObject = errors.New("input is not a JSON object")

// ToolInput returns a tool call's input in the form ToolCall.Input takes:
// a compact JSON object, with empty input and null read as {} (a call
// without arguments). Anything else is an error; the model made it, so a
// plugin reports it as ErrMalformedToolCall or a permanent error of its
// own. It serves both ways: a call the model sent, and one sent back.
func ToolInput(raw json.RawMessage) (json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return json.RawMessage("{}"), nil
	}
	var buf bytes.Buffer
	if raw[0] != '{' || json.Compact(&buf, raw) != nil {
		return nil, errNotObject
	}
	return buf.Bytes(), nil
}
