package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"

	"github.com/axonhq/axon/sdk"
	"github.com/axonhq/axon/sdk/sse"
)

// newEventReader reads an event stream of either wire family. Some
// OpenAI-compatible servers end on "data: [DONE]" with no final newline,
// so a last line cut before its line end is taken as whole; a cut JSON
// value then fails to decode, which is reported as a malformed chunk.
func newEventReader(body io.Reader) *sse.Reader {
	r := sse.NewReader(body)
	r.LenientEnd = true
	return r
}

// doneMarker is the data of the event that ends a stream.
const doneMarker = "[DONE]"

// errMalformedChunk: a stream event that is not JSON, with strict_stream
// on (without it the event is skipped and counted).
var errMalformedChunk = &sdk.Error{Class: sdk.ClassTransient, Code: "malformed_chunk"}

// decodeStream reads a streamed chat completion (SSE of
// chat.completion.chunk objects) into t. The stream ends at data: [DONE];
// one that stops without [DONE] and without a finish_reason was cut, and
// that is a transient failure, never a short success. A chunk that is not
// JSON is skipped and counted (t.s.Skip; an error with strict_stream), and
// a stream that skipped one must end with [DONE]: the skipped chunk may
// have been the body's last, cut short.
func decodeStream(ctx context.Context, body io.Reader, t *turn) error {
	sr := newEventReader(body)
	var c chunk
	done := false
	for !done {
		ev, err := sr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return t.fail(ctx, readError(ctx, err))
		}
		data := bytes.TrimSpace(ev.Data)
		switch {
		case string(data) == doneMarker:
			done = true
			continue
		case string(ev.Type) == "error":
			return t.fail(ctx, streamError(data))
		case len(data) == 0:
			continue // a keep-alive
		case data[0] == '[':
			return t.fail(ctx, streamError(data)) // Gemini wraps errors in an array
		}
		// Reuse the choices array: encoding/json decodes into the elements
		// it finds, so they are zeroed first.
		choices := c.Choices[:cap(c.Choices)]
		clear(choices)
		c = chunk{Choices: choices[:0]}
		if err := json.Unmarshal(data, &c); err != nil {
			if err := t.s.Skip(errMalformedChunk.Newf("openai: malformed stream chunk")); err != nil {
				return t.fail(ctx, err)
			}
			continue
		}
		if len(c.Error) > 0 && !bytes.Equal(c.Error, []byte("null")) {
			t.addUsage(c.Usage) // OpenRouter reports what the failed reply cost
			return t.fail(ctx, streamError(data))
		}
		if err := t.chunk(ctx, &c, false); err != nil {
			return err
		}
	}
	if !done && (t.finish == "" || t.s.Skipped() > 0) {
		return t.fail(ctx, sdk.ErrCutStream.Newf("openai: stream ended before the reply finished"))
	}
	return t.end(ctx)
}
