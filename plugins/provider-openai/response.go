package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"

	"github.com/axonhq/axon/sdk"
)

// decodeJSON reads a non-streaming chat completion into t. Servers answer
// this way when they ignore stream: true, and recorded replies come this
// way; both go through the same turn as a stream does.
func decodeJSON(ctx context.Context, body io.Reader, t *turn) error {
	b, err := readJSONBody(ctx, body)
	if err != nil {
		return err
	}
	if len(b) > 0 && b[0] == '[' {
		return streamError(b)
	}
	var c chunk
	if err := json.Unmarshal(b, &c); err != nil {
		return &sdk.Error{Class: sdk.ClassTransient, Code: "malformed_reply", Message: "openai: malformed reply"}
	}
	if len(c.Error) > 0 && !bytes.Equal(c.Error, []byte("null")) {
		t.addUsage(c.Usage)
		return t.fail(ctx, streamError(b))
	}
	if err := t.chunk(ctx, &c, true); err != nil {
		return err
	}
	return t.end(ctx)
}

// readJSONBody reads a whole non-streaming reply, trimmed, within
// maxJSONBody.
func readJSONBody(ctx context.Context, body io.Reader) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(body, maxJSONBody+1))
	if err != nil {
		return nil, readError(ctx, err)
	}
	if len(b) > maxJSONBody {
		return nil, &sdk.Error{Class: sdk.ClassPermanent, Code: "response_too_large", Message: "openai: reply too large"}
	}
	return bytes.TrimSpace(b), nil
}
