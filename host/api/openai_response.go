package api

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/axonhq/axon/sdk"
)

type openaiCompletion struct {
	ID      string         `json:"id"`
	Object  string         `json:"object"`
	Created int64          `json:"created"`
	Model   string         `json:"model"`
	Choices []openaiChoice `json:"choices"`
	Usage   *openaiUsage   `json:"usage,omitempty"`
}

type openaiChoice struct {
	Index        int              `json:"index"`
	Message      openaiOutMessage `json:"message"`
	Logprobs     *struct{}        `json:"logprobs"` // always null
	FinishReason string           `json:"finish_reason"`
}

type openaiOutMessage struct {
	Role             string              `json:"role"`
	Content          *string             `json:"content"` // null when the answer has no text
	ReasoningContent string              `json:"reasoning_content,omitempty"`
	ToolCalls        []openaiOutToolCall `json:"tool_calls,omitempty"`
	Refusal          *string             `json:"refusal"` // always null: a refusal is a finish reason here
}

type openaiOutToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// openaiUsage holds only what the provider reported: a count it did not
// report is left out, never sent as 0.
type openaiUsage struct {
	PromptTokens            *int64                   `json:"prompt_tokens,omitempty"`
	CompletionTokens        *int64                   `json:"completion_tokens,omitempty"`
	TotalTokens             *int64                   `json:"total_tokens,omitempty"`
	PromptTokensDetails     *openaiPromptDetails     `json:"prompt_tokens_details,omitempty"`
	CompletionTokensDetails *openaiCompletionDetails `json:"completion_tokens_details,omitempty"`
}

type openaiPromptDetails struct {
	CachedTokens *int64 `json:"cached_tokens,omitempty"`
}

type openaiCompletionDetails struct {
	ReasoningTokens *int64 `json:"reasoning_tokens,omitempty"`
}

// openaiUsageOf is nil when the provider reported no usage at all. The
// canonical counts are disjoint (sdk.Usage); OpenAI's prompt_tokens
// includes cached tokens, so cache reads and writes are added back in, and
// the reads are also named in prompt_tokens_details; reasoning tokens (a
// part of the output) in completion_tokens_details.
func openaiUsageOf(t *turn) *openaiUsage {
	if !t.hasUsage {
		return nil
	}
	u := t.usage
	out := &openaiUsage{CompletionTokens: u.OutputTokens}
	if u.InputTokens != nil {
		prompt := *u.InputTokens
		for _, c := range []*int64{u.CacheReadTokens, u.CacheWriteTokens} {
			if c != nil {
				prompt += *c
			}
		}
		out.PromptTokens = sdk.Tokens(prompt)
	}
	if out.PromptTokens != nil && u.OutputTokens != nil {
		out.TotalTokens = sdk.Tokens(*out.PromptTokens + *u.OutputTokens)
	}
	if u.CacheReadTokens != nil {
		out.PromptTokensDetails = &openaiPromptDetails{CachedTokens: u.CacheReadTokens}
	}
	if u.ReasoningTokens != nil {
		out.CompletionTokensDetails = &openaiCompletionDetails{ReasoningTokens: u.ReasoningTokens}
	}
	return out
}

// openaiFinish names a finish reason in OpenAI's words, which are the
// canonical ones.
func openaiFinish(t *turn) string { return string(t.finishReason()) }

// whole renders a chat.completion object.
func (openaiDialect) whole(m meta, t *turn) ([]byte, error) {
	msg := openaiOutMessage{Role: "assistant"}
	var text, reasoning []string
	for _, p := range t.content() {
		switch p := p.(type) {
		case sdk.Text:
			text = append(text, p.Text)
		case sdk.Reasoning:
			reasoning = append(reasoning, p.Text) // signatures and redacted reasoning have no place here
		case sdk.ToolCall:
			tc := openaiOutToolCall{ID: p.ID, Type: "function"}
			tc.Function.Name, tc.Function.Arguments = p.Name, string(p.Input)
			msg.ToolCalls = append(msg.ToolCalls, tc)
		}
	}
	if s := strings.Join(text, ""); s != "" {
		msg.Content = &s
	}
	msg.ReasoningContent = strings.Join(reasoning, "") // one allocation, none for a single part
	return json.Marshal(openaiCompletion{
		ID: m.id, Object: "chat.completion", Created: m.created, Model: m.model,
		Choices: []openaiChoice{{Message: msg, FinishReason: openaiFinish(t)}},
		Usage:   openaiUsageOf(t),
	})
}

// openaiStream writes chat.completion.chunk frames. Each chunk starts with
// the same id, created and model, rendered once; the per-token frames are
// appended by hand so that a frame costs no allocation.
type openaiStream struct {
	prefix       []byte // `data: {"id":...,"choices":[`
	includeUsage bool
}

var _ streamEncoder = (*openaiStream)(nil)

func (openaiDialect) stream(m meta, c *call) streamEncoder {
	p := make([]byte, 0, 96+len(m.id)+len(m.model))
	p = append(p, `data: {"id":`...)
	p = appendJSONString(p, m.id)
	p = append(p, `,"object":"chat.completion.chunk","created":`...)
	p = strconv.AppendInt(p, m.created, 10)
	p = append(p, `,"model":`...)
	p = appendJSONString(p, m.model)
	p = append(p, `,"choices":[`...)
	return &openaiStream{prefix: p, includeUsage: c.includeUsage}
}

const (
	openaiDeltaHead = `{"index":0,"delta":{`
	openaiChunkTail = `},"logprobs":null,"finish_reason":null}]}` + "\n\n"
)

// open sends the assistant role, as OpenAI's first chunk does.
func (s *openaiStream) open(b []byte, _ *turn) []byte {
	b = append(b, s.prefix...)
	return append(b, openaiDeltaHead+`"role":"assistant","content":""`+openaiChunkTail...)
}

// event sends one delta. A tool call goes out whole, in one chunk with its
// id, type, name and complete arguments, at its own index.
func (s *openaiStream) event(b []byte, _ *turn, ev sdk.Event) []byte {
	switch ev.Type {
	case sdk.EventTextDelta:
		if ev.Text == "" {
			return b
		}
		b = append(b, s.prefix...)
		b = append(b, openaiDeltaHead+`"content":`...)
		b = appendJSONString(b, ev.Text)
	case sdk.EventReasoningDelta:
		if ev.Text == "" {
			return b
		}
		b = append(b, s.prefix...)
		b = append(b, openaiDeltaHead+`"reasoning_content":`...)
		b = appendJSONString(b, ev.Text)
	case sdk.EventToolCall:
		b = append(b, s.prefix...)
		b = append(b, openaiDeltaHead+`"tool_calls":[{"index":`...)
		b = strconv.AppendInt(b, int64(ev.Index), 10)
		b = append(b, `,"id":`...)
		b = appendJSONString(b, ev.ToolCall.ID)
		b = append(b, `,"type":"function","function":{"name":`...)
		b = appendJSONString(b, ev.ToolCall.Name)
		b = append(b, `,"arguments":`...)
		b = appendJSONString(b, string(ev.ToolCall.Input))
		b = append(b, `}}]`...)
	default:
		return b
	}
	return append(b, openaiChunkTail...)
}

// end sends the finish reason, the usage chunk when the client asked for
// it (usage null when the provider reported none), and [DONE].
func (s *openaiStream) end(b []byte, t *turn) []byte {
	b = append(b, s.prefix...)
	b = append(b, `{"index":0,"delta":{},"logprobs":null,"finish_reason":`...)
	b = appendJSONString(b, openaiFinish(t))
	b = append(b, "}]}\n\n"...)
	if s.includeUsage {
		b = append(b, s.prefix...)
		b = append(b, `],"usage":`...)
		if u := openaiUsageOf(t); u != nil {
			b = append(b, mustJSON(u)...)
		} else {
			b = append(b, "null"...)
		}
		b = append(b, "}\n\n"...)
	}
	return append(b, "data: [DONE]\n\n"...)
}

// fail ends a broken stream with an error object and no [DONE]: the
// official clients raise an error for any event whose data has an "error"
// key.
func (s *openaiStream) fail(b []byte, e *wireError) []byte {
	_, body := e.openai()
	b = append(b, "data: "...)
	b = append(b, body...)
	return append(b, "\n\n"...)
}
