package main

import (
	"context"
	"encoding/json"
	"io"

	"github.com/axonhq/axon/sdk"
)

// wireChunk is one line of an /api/chat stream, or a whole non-streaming
// reply. A line with Error set is a failure and has nothing else.
type wireChunk struct {
	Model           string          `json:"model"`
	CreatedAt       string          `json:"created_at"`
	Message         *wireMessage    `json:"message"`
	Done            bool            `json:"done"`
	DoneReason      string          `json:"done_reason"`
	PromptEvalCount *int64          `json:"prompt_eval_count"`
	EvalCount       *int64          `json:"eval_count"`
	Error           json.RawMessage `json:"error"`
}

// decodeStream turns an NDJSON body into events on t. It returns after the
// done line (the rest of the body is not read), on an error line, or when
// the body ends, which without a done line is a failure: a cut stream must
// never look like a complete reply. A line that is not JSON is skipped and
// counted (t.s.Skip; an error with strict_stream): the done line is still
// required.
func decodeStream(ctx context.Context, body io.Reader, t *turn) error {
	lines := newLineReader(body)
	var c wireChunk // zeroed per line: a field one line omits must not carry over
	for {
		line, err := lines.Next()
		if err != nil {
			if err == io.EOF {
				return sdk.ErrCutStream.Newf("ollama: stream ended before done")
			}
			return sdk.ReadError(ctx, "ollama", err, errLineTooLong)
		}
		c = wireChunk{}
		if err := json.Unmarshal(line, &c); err != nil {
			// A line cut by a broken connection lands here too; skipped,
			// it leaves a stream without its done line, which is cut.
			if err := t.s.Skip(errMalformedLine.Newf("ollama: malformed or cut stream line")); err != nil {
				return err
			}
			continue
		}
		if done, err := apply(ctx, t, &c); err != nil || done {
			return err
		}
	}
}

// errMalformedLine: a stream line that is not JSON, with strict_stream on.
var errMalformedLine = &sdk.Error{Class: sdk.ClassTransient, Code: "malformed_chunk"}

// decodeReply turns a non-streaming JSON body into events: Ollama answers
// with one when a proxy or an old server ignores "stream": true.
func decodeReply(ctx context.Context, body io.Reader, t *turn) error {
	var c wireChunk
	if err := json.NewDecoder(body).Decode(&c); err != nil {
		return sdk.DecodeError(ctx, "ollama", "an /api/chat reply", err)
	}
	done, err := apply(ctx, t, &c)
	if err != nil {
		return err
	}
	if !done {
		return sdk.Transientf("ollama: reply without done")
	}
	return nil
}

// apply sends what one chunk carries. done reports that the chunk ended the
// reply, and then the turn has been finished.
func apply(ctx context.Context, t *turn, c *wireChunk) (done bool, err error) {
	if len(c.Error) > 0 && string(c.Error) != "null" {
		return false, lineError(c.Error)
	}
	if err := t.s.Start(ctx, c.Model); err != nil {
		return false, err
	}
	if m := c.Message; m != nil {
		if err := t.s.Reasoning(ctx, sdk.Reasoning{Text: m.Thinking}); err != nil {
			return false, err
		}
		if err := t.s.Text(ctx, m.Content); err != nil {
			return false, err
		}
		for _, call := range m.ToolCalls {
			if err := t.toolCall(ctx, c.CreatedAt, call); err != nil {
				return false, err
			}
		}
	}
	if !c.Done {
		return false, nil
	}
	t.s.Usage(&sdk.Usage{InputTokens: c.PromptEvalCount, OutputTokens: c.EvalCount})
	return true, t.s.Finish(ctx, finishReason(c.DoneReason, t.s.ToolCalls() > 0))
}
