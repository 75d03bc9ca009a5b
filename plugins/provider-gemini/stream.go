package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"

	"github.com/axonhq/axon/sdk"
	"github.com/axonhq/axon/sdk/sse"
)

// decodeStream turns an alt=sse body into events on t. Gemini's events are
// data-only, one whole GenerateContentResponse each, with no terminator
// event: the body ends after the chunk holding finishReason. A body cut
// inside a line, or ending without a finishReason, is a failure: a cut
// stream must never look like a complete reply. A chunk that is not JSON
// is skipped and counted (t.s.Skip; an error with strict_stream): the
// finishReason is still required.
func decodeStream(ctx context.Context, body io.Reader, t *turn) error {
	events := sse.NewReader(body)
	var chunk wireResponse // reused: its slices are overwritten per event
	for {
		raw, err := events.Next()
		switch {
		case err == io.EOF:
			return t.end(ctx)
		case err == io.ErrUnexpectedEOF:
			return sdk.ErrCutStream.Newf("gemini: stream cut inside an event")
		case err != nil:
			return sdk.ReadError(ctx, "gemini", err, sse.ErrEventTooLarge)
		}
		chunk = wireResponse{}
		if err := json.Unmarshal(raw.Data, &chunk); err != nil {
			if err := t.s.Skip(errMalformedChunk.Newf("gemini: malformed stream chunk")); err != nil {
				return err
			}
			continue
		}
		if err := t.chunk(ctx, &chunk); err != nil {
			return err
		}
	}
}

// errMalformedChunk: a stream chunk that is not JSON, with strict_stream
// on.
var errMalformedChunk = &sdk.Error{Class: sdk.ClassTransient, Code: "malformed_chunk"}

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

// jsonFailure classifies a JSON decoding error.
func jsonFailure(ctx context.Context, err error) error {
	return sdk.DecodeError(ctx, "gemini", "a generateContent response", err)
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
