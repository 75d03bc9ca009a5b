package main

import (
	"encoding/json"

	"github.com/axonhq/axon/sdk"
)

// responsesRequest is the body of POST {base_url}/responses (api =
// "responses"). Input holds inputMessage, functionCallItem,
// functionCallOutput and reasoningItem values, in conversation order.
type responsesRequest struct {
	Model             string          `json:"model"`
	Instructions      string          `json:"instructions,omitempty"`
	Input             []any           `json:"input"`
	Tools             []responsesTool `json:"tools,omitempty"`
	ToolChoice        any             `json:"tool_choice,omitempty"` // "none" | "required" | responsesToolChoice
	ParallelToolCalls *bool           `json:"parallel_tool_calls,omitempty"`
	MaxOutputTokens   int             `json:"max_output_tokens,omitempty"`
	Temperature       *float64        `json:"temperature,omitempty"`
	TopP              *float64        `json:"top_p,omitempty"`
	Reasoning         *reasoningParam `json:"reasoning,omitempty"`
	Include           []string        `json:"include,omitempty"`
	Text              *textParam      `json:"text,omitempty"`
	// Store is always false: the host sends the whole conversation each
	// turn, so nothing needs keeping on the vendor's side.
	Store  bool `json:"store"`
	Stream bool `json:"stream"`
}

type inputMessage struct {
	Type    string `json:"type"` // message
	Role    string `json:"role"` // system | user | assistant
	Content []any  `json:"content"`
}

type inputText struct {
	Type string `json:"type"` // input_text | output_text
	Text string `json:"text"`
}

type inputImage struct {
	Type     string `json:"type"`      // input_image
	ImageURL string `json:"image_url"` // a remote URL or a data URL
	Detail   string `json:"detail"`
}

type functionCallItem struct {
	Type      string `json:"type"` // function_call
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type functionCallOutput struct {
	Type   string `json:"type"` // function_call_output
	CallID string `json:"call_id"`
	Output string `json:"output"`
}

// reasoningItem passes encrypted reasoning from an earlier turn back.
type reasoningItem struct {
	Type             string     `json:"type"` // reasoning
	ID               string     `json:"id"`
	Summary          []struct{} `json:"summary"` // required; the summary is display text, the model needs only the encrypted content
	EncryptedContent string     `json:"encrypted_content"`
}

// responsesTool is a function tool: flat, not nested under "function".
type responsesTool struct {
	Type        string          `json:"type"` // function
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

type responsesToolChoice struct {
	Type string `json:"type"` // function
	Name string `json:"name"`
}

type reasoningParam struct {
	Effort string `json:"effort"`
}

type textParam struct {
	Format json.RawMessage `json:"format"`
}

// includeEncryptedReasoning asks for reasoning items to carry their
// encrypted content, which is what lets a stateless (store: false) caller
// pass them back. Non-reasoning models refuse it, so it is sent only when
// reasoning is asked for.
const includeEncryptedReasoning = "reasoning.encrypted_content"

// buildResponsesRequest translates a canonical request into the Responses
// wire body. It is pure: no I/O, no clock.
func buildResponsesRequest(c config, req *sdk.Request) (*responsesRequest, error) {
	if len(req.StopSequences) > 0 {
		return nil, sdk.Unsupportedf("stop sequences are not supported by the OpenAI Responses API (api = %q); use api = %q or drop them", apiResponses, apiChat)
	}
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
	effort := c.ReasoningEffort
	if opts.ReasoningEffort != "" {
		effort = opts.ReasoningEffort
	}
	input, err := buildInput(req, effort != "")
	if err != nil {
		return nil, err
	}
	out := &responsesRequest{
		Model:             model,
		Instructions:      sdk.SystemText(req.System),
		Input:             input,
		Temperature:       req.Temperature,
		TopP:              opts.TopP,
		ParallelToolCalls: parallelToolCalls(req, opts),
		Stream:            true,
	}
	if effort != "" {
		out.Reasoning = &reasoningParam{Effort: effort}
		out.Include = []string{includeEncryptedReasoning}
	}
	switch {
	case req.Output != nil: // the canonical form wins over the option
		format, err := responsesTextFormat(req.Output)
		if err != nil {
			return nil, err
		}
		out.Text = &textParam{Format: format}
	case len(opts.ResponseFormat) > 0:
		format, err := textFormat(opts.ResponseFormat)
		if err != nil {
			return nil, err
		}
		out.Text = &textParam{Format: format}
	}
	limit := req.MaxTokens
	if limit <= 0 {
		limit = c.MaxTokens
	}
	out.MaxOutputTokens = max(limit, 0)
	if len(req.Tools) > 0 {
		out.Tools = buildResponsesTools(req.Tools)
		choice, err := buildResponsesToolChoice(req.ToolChoice, req.Tools)
		if err != nil {
			return nil, err
		}
		out.ToolChoice = choice
	} else {
		out.ParallelToolCalls = nil // refused without tools, as on Chat Completions
	}
	return out, nil
}

func buildResponsesTools(specs []sdk.ToolSpec) []responsesTool {
	tools := make([]responsesTool, 0, len(specs))
	for _, s := range specs {
		params := s.InputSchema
		if len(params) == 0 {
			params = emptySchema
		}
		tools = append(tools, responsesTool{Type: "function", Name: s.Name, Description: s.Description, Parameters: params})
	}
	return tools
}

func buildResponsesToolChoice(tc sdk.ToolChoice, tools []sdk.ToolSpec) (any, error) {
	choice, err := buildToolChoice(tc, tools) // validates the mode and the name
	if err != nil || tc.Mode != sdk.ToolChoiceTool {
		return choice, err
	}
	return responsesToolChoice{Type: "function", Name: tc.Name}, nil
}

// textFormat turns a Chat Completions response_format into the Responses
// text.format, where a JSON schema's fields sit beside its type.
func textFormat(rf json.RawMessage) (json.RawMessage, error) {
	var f struct {
		Type       string          `json:"type"`
		JSONSchema json.RawMessage `json:"json_schema"`
	}
	if err := json.Unmarshal(rf, &f); err != nil {
		return nil, sdk.Permanentf("option response_format: %v", err)
	}
	if f.Type != "json_schema" {
		return rf, nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(f.JSONSchema, &fields); err != nil || fields == nil {
		return nil, sdk.Permanentf("option response_format: json_schema wants an object")
	}
	fields["type"] = json.RawMessage(`"json_schema"`)
	b, err := json.Marshal(fields)
	if err != nil {
		return nil, sdk.Permanentf("option response_format: %v", err)
	}
	return b, nil
}

// buildInput lays the conversation out as input items. The system prompt
// travels as instructions, not here. withReasoning says whether encrypted
// reasoning from earlier turns is passed back.
func buildInput(req *sdk.Request, withReasoning bool) ([]any, error) {
	out := []any{}
	for i, m := range req.Messages {
		var err error
		switch m.Role {
		case sdk.RoleSystem:
			out = append(out, inputMessage{Type: "message", Role: "system", Content: []any{inputText{Type: "input_text", Text: sdk.TextOf(m.Parts)}}})
		case sdk.RoleUser, sdk.RoleTool:
			out, err = appendResponsesUserTurn(out, m)
		case sdk.RoleAssistant:
			out, err = appendResponsesAssistantTurn(out, m, withReasoning)
		default:
			err = sdk.Permanentf("message %d: unknown role %q", i, m.Role)
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// appendResponsesUserTurn emits the tool results of m first, as
// function_call_output items, then its other content as a user message.
// Images and documents inside tool results travel in that message, as on
// Chat Completions: the output of a call is text.
func appendResponsesUserTurn(out []any, m sdk.Message) ([]any, error) {
	var content []any
	addImage := func(img sdk.Image) error {
		u, err := imageRef(img)
		if err != nil {
			return err
		}
		content = append(content, inputImage{Type: "input_image", ImageURL: u, Detail: "auto"})
		return nil
	}
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
			out = append(out, functionCallOutput{Type: "function_call_output", CallID: p.CallID, Output: text})
			for _, q := range p.Content {
				switch q := q.(type) {
				case sdk.Image:
					if err := addImage(q); err != nil {
						return nil, err
					}
				case sdk.Document:
					items, err := responsesDocument(q)
					if err != nil {
						return nil, err
					}
					content = append(content, items...)
				}
			}
		case sdk.Text:
			content = append(content, inputText{Type: "input_text", Text: p.Text})
		case sdk.Image:
			if err := addImage(p); err != nil {
				return nil, err
			}
		case sdk.Document:
			items, err := responsesDocument(p)
			if err != nil {
				return nil, err
			}
			content = append(content, items...)
		case sdk.Reasoning, sdk.ToolCall:
			// Only assistant turns carry these.
		}
	}
	if len(content) == 0 {
		return out, nil
	}
	return append(out, inputMessage{Type: "message", Role: "user", Content: content}), nil
}

// appendResponsesAssistantTurn emits an assistant turn as items in part
// order: consecutive text as one assistant message, each tool call as a
// function_call item, and (withReasoning) each encrypted reasoning block
// this mode produced as a reasoning item. Other reasoning (plain text,
// signatures, another vendor's redacted data) has no place here and is
// dropped.
func appendResponsesAssistantTurn(out []any, m sdk.Message, withReasoning bool) ([]any, error) {
	var text []any
	flush := func() {
		if len(text) > 0 {
			out = append(out, inputMessage{Type: "message", Role: "assistant", Content: text})
			text = nil
		}
	}
	for _, p := range m.Parts {
		switch p := p.(type) {
		case sdk.Text:
			if p.Text != "" {
				text = append(text, inputText{Type: "output_text", Text: p.Text})
			}
		case sdk.ToolCall:
			if p.ID == "" || p.Name == "" {
				return nil, sdk.Permanentf("assistant tool call without id or name")
			}
			args := string(p.Input)
			if len(p.Input) == 0 {
				args = "{}"
			}
			flush()
			out = append(out, functionCallItem{Type: "function_call", CallID: p.ID, Name: p.Name, Arguments: args})
		case sdk.Reasoning:
			r, ok := decodeEncryptedReasoning(p.Redacted)
			if !withReasoning || !ok {
				continue
			}
			flush()
			out = append(out, reasoningItem{Type: "reasoning", ID: r.ID, Summary: []struct{}{}, EncryptedContent: r.EncryptedContent})
		case sdk.Image, sdk.Document, sdk.ToolResult:
			return nil, sdk.Permanentf("assistant turn with a %T part: the wire format has no place for it", p)
		}
	}
	flush()
	return out, nil
}
