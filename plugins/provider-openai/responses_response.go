package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"

	"github.com/axonhq/axon/sdk"
)

// responseObject is a Responses API response: the whole non-streaming
// reply, and the payload of response.created, .completed, .incomplete and
// .failed stream events. Only the fields this plugin reads are declared.
type responseObject struct {
	ID                string          `json:"id"`
	Model             string          `json:"model"`
	Status            string          `json:"status"`
	Error             json.RawMessage `json:"error"` // null, or {code, message}
	IncompleteDetails *struct {
		Reason string `json:"reason"`
	} `json:"incomplete_details"`
	Usage  *responsesUsage `json:"usage"`
	Output []outputItem    `json:"output"`
}

// outputItem is one entry of output: a message, a function call or a
// reasoning item (other item types are hosted tools this plugin never
// offers, and are ignored).
type outputItem struct {
	ID               string `json:"id"`
	Type             string `json:"type"`
	CallID           string `json:"call_id"`
	Name             string `json:"name"`
	Arguments        string `json:"arguments"`
	EncryptedContent string `json:"encrypted_content"`
	Content          []struct {
		Type    string `json:"type"` // output_text | refusal | reasoning_text
		Text    string `json:"text"`
		Refusal string `json:"refusal"`
	} `json:"content"`
	Summary []struct {
		Text string `json:"text"`
	} `json:"summary"`
}

// responsesUsage counts tokens. input_tokens includes the cached ones, as
// prompt_tokens does on Chat Completions.
type responsesUsage struct {
	InputTokens        *int64 `json:"input_tokens"`
	OutputTokens       *int64 `json:"output_tokens"`
	InputTokensDetails *struct {
		CachedTokens *int64 `json:"cached_tokens"`
	} `json:"input_tokens_details"`
}

// summarySeparator joins the parts of a reasoning summary, which the wire
// keeps apart and the sdk streams as one text.
const summarySeparator = "\n\n"

// decodeResponsesJSON reads a non-streaming Responses reply into t.
func decodeResponsesJSON(ctx context.Context, body io.Reader, t *turn) error {
	b, err := readJSONBody(ctx, body)
	if err != nil {
		return err
	}
	if len(b) > 0 && b[0] == '[' {
		return streamError(b)
	}
	var r responseObject
	if err := json.Unmarshal(b, &r); err != nil {
		return &sdk.Error{Class: sdk.ClassTransient, Code: "malformed_reply", Message: "openai: malformed reply"}
	}
	if r.ID == "" && hasError(r.Error) {
		return streamError(b) // an error body with status 200
	}
	if err := t.start(ctx, r.Model, r.ID); err != nil {
		return err
	}
	if err := applyOutput(ctx, t, r.Output); err != nil {
		return err
	}
	return settle(ctx, t, &r)
}

// applyOutput sends the content of whole output items: reasoning summary
// and encrypted reasoning, text, refusals; function calls are kept for
// the end of the turn.
func applyOutput(ctx context.Context, t *turn, items []outputItem) error {
	for i := range items {
		it := &items[i]
		switch it.Type {
		case "reasoning":
			for j, s := range it.Summary {
				if j > 0 {
					if err := t.s.Reasoning(ctx, sdk.Reasoning{Text: summarySeparator}); err != nil {
						return err
					}
				}
				if err := t.s.Reasoning(ctx, sdk.Reasoning{Text: s.Text}); err != nil {
					return err
				}
			}
			for _, c := range it.Content {
				if err := t.s.Reasoning(ctx, sdk.Reasoning{Text: c.Text}); err != nil {
					return err
				}
			}
			if err := sendEncryptedReasoning(ctx, t, it); err != nil {
				return err
			}
		case "message":
			for _, c := range it.Content {
				var err error
				switch c.Type {
				case "output_text":
					err = t.s.Text(ctx, c.Text)
				case "refusal":
					err = t.refusal(ctx, c.Refusal)
				}
				if err != nil {
					return err
				}
			}
		case "function_call":
			addWholeCall(t, it)
		}
	}
	return nil
}

// sendEncryptedReasoning passes a reasoning item's encrypted content on as
// a redacted reasoning block, so a later turn can send it back.
func sendEncryptedReasoning(ctx context.Context, t *turn, it *outputItem) error {
	if it.EncryptedContent == "" || it.ID == "" {
		return nil
	}
	return t.s.Reasoning(ctx, sdk.Reasoning{Redacted: encodeEncryptedReasoning(it.ID, it.EncryptedContent)})
}

func addWholeCall(t *turn, it *outputItem) {
	var d toolCallDelta
	d.ID = it.CallID
	d.Function.Name = it.Name
	d.Function.Arguments = it.Arguments
	t.calls.addWhole(&d)
}

// settle ends the turn as the response's final state says: its usage, then
// the finish its status implies, or the failure.
func settle(ctx context.Context, t *turn, r *responseObject) error {
	t.addResponsesUsage(r.Usage)
	switch r.Status {
	case "completed", "":
		t.finishReason("stop")
	case "incomplete":
		reason := ""
		if r.IncompleteDetails != nil {
			reason = r.IncompleteDetails.Reason
		}
		if reason == "content_filter" {
			t.finishReason("content_filter")
		} else {
			t.finishReason("length") // max_output_tokens, the only other reason
		}
	case "failed":
		return t.fail(ctx, responseFailure(r.Error))
	default: // in_progress, queued (background mode), cancelled
		return t.fail(ctx, &sdk.Error{Class: sdk.ClassTransient, Code: "unfinished", Message: "openai: response ended with status " + safeStatus(r.Status)})
	}
	return t.end(ctx)
}

// responseFailure classifies the error object of a failed response like an
// error body.
func responseFailure(raw json.RawMessage) *sdk.Error {
	var o errorObject
	if !hasError(raw) || json.Unmarshal(raw, &o) != nil {
		return &sdk.Error{Class: sdk.ClassTransient, Message: "openai: response failed"}
	}
	return inBandError(fromObject(o))
}

// addResponsesUsage takes the usage a response reports, if any.
func (t *turn) addResponsesUsage(u *responsesUsage) {
	if u == nil {
		return
	}
	w := wireUsage{PromptTokens: u.InputTokens, CompletionTokens: u.OutputTokens}
	if d := u.InputTokensDetails; d != nil {
		w.PromptCacheHitTokens = d.CachedTokens
	}
	t.addUsage(&w)
}

func hasError(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && !bytes.Equal(raw, []byte("null"))
}

// safeStatus is a status fit for a message: one sdk.ErrorLabel keeps, or
// "unknown".
func safeStatus(s string) string {
	if l := sdk.ErrorLabel(s); l != "" {
		return l
	}
	return "unknown"
}
