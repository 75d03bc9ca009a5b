package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"

	"github.com/axonhq/axon/sdk"
	"github.com/axonhq/axon/sdk/sse"
)

// decodeStream turns an alt=sse body into events on t. Gemini's events are
// data-only, one whole GenerateContentResponse each, with no terminator
// event: the body ends after the chunk holding finishReason. A body cut
// inside a line, or ending without a finishReason, is a failure: a cut
// stream must never look like a complete reply.
func decodeStream(ctx context.Context, body io.Reader, t *turn) error {
	events := sse.NewReader(body)
	var chunk wireResponse // reused: its slices are overwritten per event
	for {
		raw, err := events.Next()
		switch {
		case err == io.EOF:
			return t.end(ctx)
		case err == io.ErrUnexpectedEOF:
			return &sdk.Error{Class: sdk.ClassTransient, Code: "cut_stream", Message: "gemini: stream cut inside an event"}
		case err != nil:
			return readFailure(ctx, err)
		}
		chunk = wireResponse{}
		if err := json.Unmarshal(raw.Data, &chunk); err != nil {
			return sdk.Transientf("gemini: malformed stream chunk")
		}
		if err := t.chunk(ctx, &chunk); err != nil {
			return err
		}
	}
}

// decodeJSON turns a JSON body into events on t: one response object
// (generateContent), or a JSON array of them (streamGenerateContent
// without alt=sse), read element by element as it arrives.
func decodeJSON(ctx context.Context, body *bufio.Reader, t *turn) error {
	dec := json.NewDecoder(body)
	if firstByte(body) != '[' {
		var r wireResponse
		if err := dec.Decode(&r); err != nil {
			return jsonFailure(ctx, err)
		}
		if err := t.chunk(ctx, &r); err != nil {
			return err
		}
		return t.end(ctx)
	}
	if _, err := dec.Token(); err != nil { // the opening bracket
		return jsonFailure(ctx, err)
	}
	for dec.More() {
		var r wireResponse
		if err := dec.Decode(&r); err != nil {
			return jsonFailure(ctx, err)
		}
		if err := t.chunk(ctx, &r); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil { // the closing bracket
		return jsonFailure(ctx, err)
	}
	return t.end(ctx)
}

// jsonFailure classifies a JSON decoding error: a body that ended early was
// cut (transient), one that is not the format is permanent.
func jsonFailure(ctx context.Context, err error) error {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return &sdk.Error{Class: sdk.ClassTransient, Code: "cut_stream", Message: "gemini: response body ended early"}
	case errors.As(err, &syntax), errors.As(err, &typ):
		return sdk.Permanentf("gemini: response body is not a generateContent response")
	}
	return readFailure(ctx, err)
}

// isJSON says whether a 200 reply is JSON rather than an event stream: by
// its content type, or, when the server names none, by its first byte.
func isJSON(contentType string, r *bufio.Reader) bool {
	if mt, _, err := mime.ParseMediaType(contentType); err == nil {
		switch mt {
		case "text/event-stream":
			return false
		case "application/json":
			return true
		}
	}
	switch firstByte(r) {
	case '{', '[':
		return true
	}
	return false
}

// firstByte peeks at the first byte of r that is not white space; 0 when
// there is none.
func firstByte(r *bufio.Reader) byte {
	for i := 1; ; i++ {
		b, err := r.Peek(i)
		if err != nil || len(b) < i {
			return 0
		}
		switch b[i-1] {
		case ' ', '\t', '\r', '\n':
			continue
		}
		return b[i-1]
	}
}
