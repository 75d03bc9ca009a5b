package main

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// chunk is one chat.completion.chunk of a stream, and also (through
// message) a whole chat.completion: the two share every field this plugin
// reads. Fields that vary by vendor are noted where they are read.
type chunk struct {
	ID      string          `json:"id"`
	Model   string          `json:"model"`
	Choices []choice        `json:"choices"`
	Usage   *wireUsage      `json:"usage"`
	Error   json.RawMessage `json:"error"` // OpenRouter: an error chunk inside a 200 stream
}

// choice is one entry of choices. Absent and null fields read as empty:
// the plugin never needs to tell them apart, and plain values decode
// without an allocation per field.
type choice struct {
	Index        int    `json:"index"`
	Delta        delta  `json:"delta"`   // streaming
	Message      delta  `json:"message"` // non-streaming
	FinishReason string `json:"finish_reason"`
}

// delta is a streamed delta or a whole message.
type delta struct {
	Content          wireContent     `json:"content"`
	Refusal          string          `json:"refusal"`
	ReasoningContent string          `json:"reasoning_content"` // DeepSeek, Z.ai, vLLM
	Reasoning        string          `json:"reasoning"`         // Ollama, OpenRouter, Groq
	ToolCalls        []toolCallDelta `json:"tool_calls"`
}

// toolCallDelta is one fragment of a tool call. Index is absent in
// non-streaming replies from some servers; ID is empty on continuation
// fragments and, from Gemini, on every call.
type toolCallDelta struct {
	Index    *int   `json:"index"`
	ID       string `json:"id"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// wireUsage is the usage object. Nil fields were not reported.
type wireUsage struct {
	PromptTokens        *int64 `json:"prompt_tokens"`
	CompletionTokens    *int64 `json:"completion_tokens"`
	PromptTokensDetails *struct {
		CachedTokens     *int64 `json:"cached_tokens"`
		CacheWriteTokens *int64 `json:"cache_write_tokens"` // OpenRouter
	} `json:"prompt_tokens_details"`
	PromptCacheHitTokens *int64 `json:"prompt_cache_hit_tokens"` // DeepSeek
	NumCachedTokens      *int64 `json:"num_cached_tokens"`       // Mistral
}

// wireContent is message content: a string, null, or (Mistral) a list of
// typed chunks where "thinking" chunks carry reasoning.
type wireContent struct {
	Text      string
	Reasoning string
}

func (c *wireContent) UnmarshalJSON(b []byte) error {
	*c = wireContent{}
	b = bytes.TrimLeft(b, " \t\r\n")
	if len(b) == 0 || b[0] == 'n' {
		return nil
	}
	if b[0] == '"' {
		// The outer decoder has validated the string; without escapes its
		// text is the bytes between the quotes, which saves a nested
		// decoder on every streamed delta.
		if inner := b[1 : len(b)-1]; bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
			c.Text = string(inner)
			return nil
		}
		return json.Unmarshal(b, &c.Text)
	}
	var parts []typedChunk
	if err := json.Unmarshal(b, &parts); err != nil {
		return err
	}
	for _, p := range parts {
		switch p.Type {
		case "text":
			c.Text += p.Text
		case "thinking":
			for _, t := range p.Thinking {
				if t.Type == "text" {
					c.Reasoning += t.Text
				}
			}
		}
	}
	return nil
}

type typedChunk struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	Thinking []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"thinking"`
}
