package main

import (
	"encoding/base64"
	"encoding/json"
	"strings"

	"github.com/axonhq/axon/sdk"
)

// chatRequest is the body of POST {base_url}/chat/completions.
type chatRequest struct {
	Model               string          `json:"model"`
	Messages            []chatMessage   `json:"messages"`
	Tools               []chatTool      `json:"tools,omitempty"`
	ToolChoice          any             `json:"tool_choice,omitempty"` // "none" | "required" | namedToolChoice
	ParallelToolCalls   *bool           `json:"parallel_tool_calls,omitempty"`
	MaxTokens           int             `json:"max_tokens,omitempty"`
	MaxCompletionTokens int             `json:"max_completion_tokens,omitempty"`
	Temperature         *float64        `json:"temperature,omitempty"`
	TopP                *float64        `json:"top_p,omitempty"`
	Seed                *int64          `json:"seed,omitempty"`
	Stop                []string        `json:"stop,omitempty"`
	ReasoningEffort     string          `json:"reasoning_effort,omitempty"`
	ResponseFormat      json.RawMessage `json:"response_format,omitempty"`
	Stream              bool            `json:"stream"`
	StreamOptions       *streamOptions  `json:"stream_options,omitempty"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// chatMessage is one entry of messages. Content is a string, a list of
// content parts, or (assistant turns with tool calls only) an empty string.
type chatMessage struct {
	Role             string         `json:"role"`
	Content          any            `json:"content"`
	ReasoningContent *string        `json:"reasoning_content,omitempty"`
	Reasoning        *string        `json:"reasoning,omitempty"`
	ToolCalls        []chatToolCall `json:"tool_calls,omitempty"`
	ToolCallID       string         `json:"tool_call_id,omitempty"`
}

type contentPart struct {
	Type     string    `json:"type"` // text | image_url | file
	Text     string    `json:"text,omitempty"`
	ImageURL *imageURL `json:"image_url,omitempty"`
	File     *chatFile `json:"file,omitempty"`
}

type imageURL struct {
	URL string `json:"url"`
}

type chatToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function chatFunction `json:"function"`
}

type chatFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type chatTool struct {
	Type     string      `json:"type"`
	Function functionDef `json:"function"`
}

type functionDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

type namedToolChoice struct {
	Type     string `json:"type"`
	Function struct {
		Name string `json:"name"`
	} `json:"function"`
}

// emptySchema stands in for a tool without an input schema: the wire
// format wants an object schema.
var emptySchema = json.RawMessage(`{"type":"object","properties":{}}`)

// toolErrorPrefix marks a tool result the tool reported as failed: the
// Chat Completions wire has no is_error field, so the model learns it from
// the text.
const toolErrorPrefix = "Error: "

// buildRequest translates a canonical request into the wire body. It is
// pure: no I/O, no clock.
func buildRequest(c config, req *sdk.Request) (*chatRequest, error) {
	opts, err := parseOptions(req.Options)
	if err != nil {
		return nil, err
	}
	model := req.Model
	if model == "" {
		model = c.Model
	}
	if model == "" {
		return nil, sdk.Permanentf("no model: set model in the provider block or in the request")
	}
	msgs, err := buildMessages(c, req)
	if err != nil {
		return nil, err
	}
	out := &chatRequest{
		Model:             model,
		Messages:          msgs,
		Temperature:       req.Temperature,
		TopP:              opts.TopP,
		Seed:              opts.Seed,
		Stop:              req.StopSequences,
		ReasoningEffort:   c.ReasoningEffort,
		ResponseFormat:    opts.ResponseFormat,
		ParallelToolCalls: parallelToolCalls(req, opts),
		Stream:            true,
	}
	if req.Output != nil { // the canonical form wins over the option
		if out.ResponseFormat, err = chatResponseFormat(req.Output); err != nil {
			return nil, err
		}
	}
	if opts.ReasoningEffort != "" {
		out.ReasoningEffort = opts.ReasoningEffort
	}
	if c.IncludeUsage {
		out.StreamOptions = &streamOptions{IncludeUsage: true}
	}
	limit := req.MaxTokens
	if limit <= 0 {
		limit = c.MaxTokens
	}
	if limit > 0 {
		if c.MaxTokensField == fieldMaxCompletionTokens {
			out.MaxCompletionTokens = limit
		} else {
			out.MaxTokens = limit
		}
	}
	if len(req.Tools) > 0 {
		out.Tools = buildTools(req.Tools)
		choice, err := buildToolChoice(req.ToolChoice, req.Tools)
		if err != nil {
			return nil, err
		}
		out.ToolChoice = choice
	} else {
		// Without tools there is nothing to choose, and OpenAI refuses a
		// tool_choice or parallel_tool_calls that has no tools to go with it.
		out.ParallelToolCalls = nil
	}
	return out, nil
}

func buildTools(specs []sdk.ToolSpec) []chatTool {
	tools := make([]chatTool, 0, len(specs))
	for _, s := range specs {
		params := s.InputSchema
		if len(params) == 0 {
			params = emptySchema
		}
		tools = append(tools, chatTool{Type: "function", Function: functionDef{
			Name: s.Name, Description: s.Description, Parameters: params,
		}})
	}
	return tools
}

func buildToolChoice(tc sdk.ToolChoice, tools []sdk.ToolSpec) (any, error) {
	switch tc.Mode {
	case sdk.ToolChoiceAuto:
		return nil, nil // the server's default when tools are present
	case sdk.ToolChoiceNone, sdk.ToolChoiceRequired:
		return string(tc.Mode), nil
	case sdk.ToolChoiceTool:
		for _, t := range tools {
			if t.Name == tc.Name {
				var n namedToolChoice
				n.Type = "function"
				n.Function.Name = tc.Name
				return n, nil
			}
		}
		return nil, sdk.Permanentf("tool choice names %q, which is not among the request's tools", tc.Name)
	}
	return nil, sdk.Permanentf("unknown tool choice mode %q", tc.Mode)
}

// buildMessages lays the conversation out in wire order: the system prompt,
// then each turn. A canonical message may expand to several wire messages:
// tool results become one role "tool" message each.
func buildMessages(c config, req *sdk.Request) ([]chatMessage, error) {
	var out []chatMessage
	if s := sdk.SystemText(req.System); s != "" {
		out = append(out, chatMessage{Role: "system", Content: s})
	}
	for i, m := range req.Messages {
		var err error
		switch m.Role {
		case sdk.RoleSystem:
			out = append(out, chatMessage{Role: "system", Content: sdk.TextOf(m.Parts)})
		case sdk.RoleUser, sdk.RoleTool:
			out, err = appendUserTurn(out, m)
		case sdk.RoleAssistant:
			out, err = appendAssistantTurn(out, c, m)
		default:
			err = sdk.Permanentf("message %d: unknown role %q", i, m.Role)
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// appendUserTurn emits the tool results of m first (they answer the
// preceding assistant turn and must follow it directly), then its other
// content as a user message. Images and documents inside tool results
// travel in that user message: tool messages carry text only.
func appendUserTurn(out []chatMessage, m sdk.Message) ([]chatMessage, error) {
	var user []sdk.Part
	for _, p := range m.Parts {
		switch p := p.(type) {
		case sdk.ToolResult:
			if p.CallID == "" {
				return nil, sdk.Permanentf("tool result without a call id")
			}
			text := sdk.TextOf(p.Content)
			if p.IsError {
				text = toolErrorPrefix + text
			}
			out = append(out, chatMessage{Role: "tool", ToolCallID: p.CallID, Content: text})
			for _, q := range p.Content {
				switch q.(type) {
				case sdk.Image, sdk.Document:
					user = append(user, q)
				}
			}
		case sdk.Text, sdk.Image, sdk.Document:
			user = append(user, p)
		case sdk.Reasoning, sdk.ToolCall:
			// Only assistant turns carry these; a user turn has no place for them.
		}
	}
	if len(user) == 0 {
		return out, nil
	}
	content, err := userContent(user)
	if err != nil {
		return nil, err
	}
	return append(out, chatMessage{Role: "user", Content: content}), nil
}

// userContent is a plain string for a single text part (what every server
// accepts) and a list of content parts otherwise.
func userContent(parts []sdk.Part) (any, error) {
	if len(parts) == 1 {
		if t, ok := parts[0].(sdk.Text); ok {
			return t.Text, nil
		}
	}
	list := make([]contentPart, 0, len(parts))
	for _, p := range parts {
		switch p := p.(type) {
		case sdk.Text:
			list = append(list, contentPart{Type: "text", Text: p.Text})
		case sdk.Image:
			u, err := imageRef(p)
			if err != nil {
				return nil, err
			}
			list = append(list, contentPart{Type: "image_url", ImageURL: &imageURL{URL: u}})
		case sdk.Document:
			parts, err := chatDocument(p)
			if err != nil {
				return nil, err
			}
			list = append(list, parts...)
		}
	}
	return list, nil
}

// imageRef is the url of an image_url part: the remote URL, or the bytes
// inline as a data URL.
func imageRef(img sdk.Image) (string, error) {
	if len(img.Data) == 0 {
		if img.URL == "" {
			return "", sdk.Permanentf("image part with neither data nor url")
		}
		return img.URL, nil
	}
	if img.MediaType == "" {
		return "", sdk.Permanentf("inline image without a media type")
	}
	var b strings.Builder
	b.Grow(len("data:;base64,") + len(img.MediaType) + base64.StdEncoding.EncodedLen(len(img.Data)))
	b.WriteString("data:")
	b.WriteString(img.MediaType)
	b.WriteString(";base64,")
	b.WriteString(base64.StdEncoding.EncodeToString(img.Data))
	return b.String(), nil
}

// appendAssistantTurn emits one assistant message: its text, its tool calls,
// and (when reasoning_field says where) its reasoning text. Reasoning
// signatures and redacted blocks have no place on this wire and are dropped.
func appendAssistantTurn(out []chatMessage, c config, m sdk.Message) ([]chatMessage, error) {
	var text, reasoning strings.Builder
	var calls []chatToolCall
	for _, p := range m.Parts {
		switch p := p.(type) {
		case sdk.Text:
			text.WriteString(p.Text)
		case sdk.Reasoning:
			reasoning.WriteString(p.Text)
		case sdk.ToolCall:
			if p.ID == "" || p.Name == "" {
				return nil, sdk.Permanentf("assistant tool call without id or name")
			}
			args := string(p.Input)
			if len(p.Input) == 0 {
				args = "{}"
			}
			calls = append(calls, chatToolCall{ID: p.ID, Type: "function", Function: chatFunction{Name: p.Name, Arguments: args}})
		case sdk.Image, sdk.Document, sdk.ToolResult:
			return nil, sdk.Permanentf("assistant turn with a %T part: the wire format has no place for it", p)
		}
	}
	msg := chatMessage{Role: "assistant", Content: text.String(), ToolCalls: calls}
	// DeepSeek's thinking mode refuses a tool-calling turn without the
	// field, even when that turn had no reasoning, so such a turn always
	// carries it.
	if r := reasoning.String(); r != "" || len(calls) > 0 {
		switch c.ReasoningField {
		case reasoningContent:
			msg.ReasoningContent = &r
		case reasoningPlain:
			msg.Reasoning = &r
		}
	}
	return append(out, msg), nil
}
