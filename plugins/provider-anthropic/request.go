package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/axonhq/axon/sdk"
)

// wireRequest is the body of POST /v1/messages.
type wireRequest struct {
	Model     string `json:"model"`
	MaxTokens int    `json:"max_tokens"`
	// System is a plain string when the prompt is one block without a
	// breakpoint (the form every Anthropic-compatible endpoint takes), else
	// an array of text blocks.
	System        any           `json:"system,omitempty"`
	Messages      []wireMessage `json:"messages"`
	Tools         []wireTool    `json:"tools,omitempty"`
	ToolChoice    *wireChoice   `json:"tool_choice,omitempty"`
	StopSequences []string      `json:"stop_sequences,omitempty"`
	Temperature   *float64      `json:"temperature,omitempty"`
	TopP          *float64      `json:"top_p,omitempty"`
	TopK          *int          `json:"top_k,omitempty"`
	Thinking      *wireThinking `json:"thinking,omitempty"`
	OutputConfig  *wireOutput   `json:"output_config,omitempty"`
	Stream        bool          `json:"stream"`

	systemBlocks []wireBlock // System as blocks, for counting breakpoints
}

type wireMessage struct {
	Role    string      `json:"role"`
	Content []wireBlock `json:"content"`
}

// wireBlock is one request content block. Only the fields of its Type are set.
type wireBlock struct {
	Type string `json:"type"`

	Text string `json:"text,omitempty"` // text

	Source  *wireSource `json:"source,omitempty"`  // image, document
	Title   string      `json:"title,omitempty"`   // document
	Context string      `json:"context,omitempty"` // document

	ID    string          `json:"id,omitempty"`    // tool_use
	Name  string          `json:"name,omitempty"`  // tool_use
	Input json.RawMessage `json:"input,omitempty"` // tool_use

	ToolUseID string      `json:"tool_use_id,omitempty"` // tool_result
	Content   []wireBlock `json:"content,omitempty"`     // tool_result
	IsError   bool        `json:"is_error,omitempty"`    // tool_result

	Thinking  *string `json:"thinking,omitempty"`  // thinking (present even when empty)
	Signature string  `json:"signature,omitempty"` // thinking
	Data      string  `json:"data,omitempty"`      // redacted_thinking

	CacheControl *wireCache `json:"cache_control,omitempty"`
}

type wireSource struct {
	Type      string `json:"type"` // base64 | url | text
	MediaType string `json:"media_type,omitempty"`
	Data      string `json:"data,omitempty"`
	URL       string `json:"url,omitempty"`
}

type wireTool struct {
	Name         string          `json:"name"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"input_schema"`
	CacheControl *wireCache      `json:"cache_control,omitempty"`
}

type wireChoice struct {
	Type string `json:"type"` // auto | any | tool | none
	Name string `json:"name,omitempty"`
	// DisableParallelToolUse: at most one tool call (sdk.ToolChoice.Sequential).
	DisableParallelToolUse bool `json:"disable_parallel_tool_use,omitempty"`
}

type wireThinking struct {
	Type         string `json:"type"` // enabled
	BudgetTokens int    `json:"budget_tokens"`
}

// buildRequest translates a canonical request into the Messages API body.
// Every Generate streams upstream, so Stream is always true.
func buildRequest(req *sdk.Request, c config) (*wireRequest, error) {
	opts, err := parseOptions(req.Options)
	if err != nil {
		return nil, err
	}
	w := &wireRequest{
		Model:         req.Model,
		MaxTokens:     req.MaxTokens,
		StopSequences: req.StopSequences,
		Temperature:   req.Temperature,
		TopP:          opts.TopP,
		TopK:          opts.TopK,
		Stream:        true,
	}
	if w.Model == "" {
		w.Model = c.Model
	}
	if w.Model == "" {
		return nil, sdk.Permanentf("no model: set model in the provider block or in the request")
	}
	if w.MaxTokens <= 0 {
		w.MaxTokens = c.MaxTokens
	}
	budget := c.ThinkingBudget
	if opts.ThinkingBudget != nil {
		budget = *opts.ThinkingBudget
	}
	if budget > 0 {
		w.Thinking = &wireThinking{Type: "enabled", BudgetTokens: budget}
	}

	var system []wireBlock
	for i, t := range req.System {
		b, err := textBlock(t)
		if err != nil {
			return nil, sdk.Permanentf("system part %d: %v", i, err)
		}
		if b != nil {
			system = append(system, *b)
		}
	}
	for i, m := range req.Messages {
		if m.Role == sdk.RoleSystem {
			// The Messages API has no system turn: system messages join the
			// top-level system prompt, in order, as blocks of their own.
			blocks, err := systemMessageBlocks(m)
			if err != nil {
				return nil, sdk.Permanentf("message %d: %v", i, err)
			}
			system = append(system, blocks...)
			continue
		}
		role, blocks, err := messageBlocks(m)
		if err != nil {
			return nil, sdk.Permanentf("message %d: %v", i, err)
		}
		w.Messages = appendTurn(w.Messages, role, blocks)
	}
	if req.Output != nil {
		if w.OutputConfig, err = outputConfig(req.Output); err != nil {
			return nil, err
		}
		if w.OutputConfig == nil {
			system = append(system, wireBlock{Type: "text", Text: jsonObjectInstruction})
		}
	}
	w.systemBlocks = system
	switch {
	case len(system) == 1 && system[0].CacheControl == nil:
		w.System = system[0].Text
	case len(system) > 0:
		w.System = system
	}
	for i := range w.Messages {
		if w.Messages[i].Role == "user" {
			toolResultsFirst(w.Messages[i].Content)
		}
	}

	for _, t := range req.Tools {
		schema := t.InputSchema
		if len(bytes.TrimSpace(schema)) == 0 {
			schema = json.RawMessage(`{"type":"object"}`)
		}
		if !json.Valid(schema) {
			return nil, sdk.Permanentf("tool %q: input schema is not valid JSON", t.Name)
		}
		cc, err := cacheControl(t.Cache)
		if err != nil {
			return nil, sdk.Permanentf("tool %q: %v", t.Name, err)
		}
		w.Tools = append(w.Tools, wireTool{Name: t.Name, Description: t.Description, InputSchema: schema, CacheControl: cc})
	}
	if w.ToolChoice, err = toolChoice(req.ToolChoice, len(w.Tools)); err != nil {
		return nil, err
	}
	if err := countBreakpoints(w); err != nil {
		return nil, err
	}
	return w, nil
}

// messageBlocks translates one non-system message into its wire role and
// content blocks.
func messageBlocks(m sdk.Message) (string, []wireBlock, error) {
	var role string
	switch m.Role {
	case sdk.RoleUser, sdk.RoleTool:
		// Anthropic carries tool results on a user turn.
		role = "user"
	case sdk.RoleAssistant:
		role = "assistant"
	default:
		return "", nil, fmt.Errorf("unknown role %q", m.Role)
	}
	var blocks []wireBlock
	for _, p := range m.Parts {
		switch p := p.(type) {
		case sdk.Text:
			b, err := textBlock(p)
			if err != nil {
				return "", nil, err
			}
			if b != nil {
				blocks = append(blocks, *b)
			}
		case sdk.Document:
			if role != "user" {
				return "", nil, errors.New("a document may only appear in a user message")
			}
			b, err := documentBlock(p)
			if err != nil {
				return "", nil, err
			}
			blocks = append(blocks, b)
		case sdk.Image:
			if role != "user" {
				return "", nil, errors.New("an image may only appear in a user message")
			}
			b, err := imageBlock(p)
			if err != nil {
				return "", nil, err
			}
			blocks = append(blocks, b)
		case sdk.Reasoning:
			if role != "assistant" {
				return "", nil, errors.New("reasoning may only appear in an assistant message")
			}
			if b, ok := reasoningBlock(p); ok {
				blocks = append(blocks, b)
			}
		case sdk.ToolCall:
			if role != "assistant" {
				return "", nil, errors.New("a tool call may only appear in an assistant message")
			}
			b, err := toolUseBlock(p)
			if err != nil {
				return "", nil, err
			}
			blocks = append(blocks, b)
		case sdk.ToolResult:
			if role != "user" {
				return "", nil, errors.New("a tool result may only appear in a user or tool message")
			}
			b, err := toolResultBlock(p)
			if err != nil {
				return "", nil, err
			}
			blocks = append(blocks, b)
		default:
			return "", nil, fmt.Errorf("unsupported part %T", p)
		}
	}
	return role, blocks, nil
}

// appendTurn adds a turn, merging it into the previous one when the role is
// the same: the API wants user and assistant turns to alternate, and a tool
// message followed by a user message is one user turn on the wire. Turns
// left empty (for example only empty text) are dropped.
func appendTurn(msgs []wireMessage, role string, blocks []wireBlock) []wireMessage {
	if len(blocks) == 0 {
		return msgs
	}
	if n := len(msgs); n > 0 && msgs[n-1].Role == role {
		msgs[n-1].Content = append(msgs[n-1].Content, blocks...)
		return msgs
	}
	return append(msgs, wireMessage{Role: role, Content: blocks})
}

// toolResultsFirst moves tool_result blocks ahead of other blocks in a user
// turn, keeping the order within each group: the API requires the results
// to lead the turn that answers a tool_use turn.
func toolResultsFirst(blocks []wireBlock) {
	results := make([]wireBlock, 0, len(blocks))
	others := make([]wireBlock, 0, len(blocks))
	for _, b := range blocks {
		if b.Type == "tool_result" {
			results = append(results, b)
		} else {
			others = append(others, b)
		}
	}
	copy(blocks, results)
	copy(blocks[len(results):], others)
}

// textBlock renders a text part; nil for an empty one, which the API
// refuses. A breakpoint on an empty part has no block to sit on and is
// refused rather than dropped.
func textBlock(p sdk.Text) (*wireBlock, error) {
	cc, err := cacheControl(p.Cache)
	if err != nil {
		return nil, err
	}
	if p.Text == "" {
		if cc != nil {
			return nil, errors.New("a cache breakpoint on an empty text part")
		}
		return nil, nil
	}
	return &wireBlock{Type: "text", Text: p.Text, CacheControl: cc}, nil
}

// systemMessageBlocks renders a RoleSystem message: text only.
func systemMessageBlocks(m sdk.Message) ([]wireBlock, error) {
	var blocks []wireBlock
	for _, p := range m.Parts {
		t, ok := p.(sdk.Text)
		if !ok {
			return nil, fmt.Errorf("a system message may hold only text, not %T", p)
		}
		b, err := textBlock(t)
		if err != nil {
			return nil, err
		}
		if b != nil {
			blocks = append(blocks, *b)
		}
	}
	return blocks, nil
}

func imageBlock(p sdk.Image) (wireBlock, error) {
	cc, err := cacheControl(p.Cache)
	if err != nil {
		return wireBlock{}, err
	}
	b, err := imageSource(p)
	b.CacheControl = cc
	return b, err
}

func imageSource(p sdk.Image) (wireBlock, error) {
	if len(p.Data) == 0 {
		if p.URL == "" {
			return wireBlock{}, errors.New("an image needs data or a URL")
		}
		return wireBlock{Type: "image", Source: &wireSource{Type: "url", URL: p.URL}}, nil
	}
	mt := p.MediaType
	if mt == "" {
		mt = http.DetectContentType(p.Data)
	}
	if !strings.HasPrefix(mt, "image/") {
		return wireBlock{}, fmt.Errorf("image media type %q is not an image type", mt)
	}
	return wireBlock{Type: "image", Source: &wireSource{
		Type:      "base64",
		MediaType: mt,
		Data:      base64.StdEncoding.EncodeToString(p.Data),
	}}, nil
}

// reasoningBlock passes a reasoning part back unchanged. Reasoning without a
// signature or redacted data came from another provider (or was never
// signed): Anthropic rejects an unsigned thinking block, so it is dropped.
func reasoningBlock(p sdk.Reasoning) (wireBlock, bool) {
	switch {
	case p.Redacted != "":
		return wireBlock{Type: "redacted_thinking", Data: p.Redacted}, true
	case p.Signature != "":
		text := p.Text
		return wireBlock{Type: "thinking", Thinking: &text, Signature: p.Signature}, true
	}
	return wireBlock{}, false
}

func toolUseBlock(p sdk.ToolCall) (wireBlock, error) {
	input, err := sdk.ToolInput(p.Input)
	if err != nil {
		return wireBlock{}, fmt.Errorf("tool call %q: %w", p.ID, err)
	}
	cc, err := cacheControl(p.Cache)
	if err != nil {
		return wireBlock{}, fmt.Errorf("tool call %q: %w", p.ID, err)
	}
	return wireBlock{Type: "tool_use", ID: p.ID, Name: p.Name, Input: input, CacheControl: cc}, nil
}

func toolResultBlock(p sdk.ToolResult) (wireBlock, error) {
	cc, err := cacheControl(p.Cache)
	if err != nil {
		return wireBlock{}, fmt.Errorf("tool result %q: %w", p.CallID, err)
	}
	b := wireBlock{Type: "tool_result", ToolUseID: p.CallID, IsError: p.IsError, CacheControl: cc}
	for _, part := range p.Content {
		switch part := part.(type) {
		case sdk.Text:
			tb, err := textBlock(part)
			if err != nil {
				return wireBlock{}, fmt.Errorf("tool result %q: %w", p.CallID, err)
			}
			if tb != nil {
				b.Content = append(b.Content, *tb)
			}
		case sdk.Document:
			db, err := documentBlock(part)
			if err != nil {
				return wireBlock{}, fmt.Errorf("tool result %q: %w", p.CallID, err)
			}
			b.Content = append(b.Content, db)
		case sdk.Image:
			ib, err := imageBlock(part)
			if err != nil {
				return wireBlock{}, err
			}
			b.Content = append(b.Content, ib)
		default:
			return wireBlock{}, fmt.Errorf("tool result %q: unsupported part %T", p.CallID, part)
		}
	}
	return b, nil
}

// toolChoice renders the tool choice. Sequential becomes
// disable_parallel_tool_use on auto, any and tool; with none, or with no
// tools, there is no parallel use to disable.
func toolChoice(tc sdk.ToolChoice, tools int) (*wireChoice, error) {
	c, err := toolChoiceMode(tc, tools)
	if c != nil && c.Type != "none" && tc.Sequential {
		c.DisableParallelToolUse = true
	}
	return c, err
}

func toolChoiceMode(tc sdk.ToolChoice, tools int) (*wireChoice, error) {
	switch tc.Mode {
	case sdk.ToolChoiceAuto:
		if tc.Sequential && tools > 0 {
			return &wireChoice{Type: "auto"}, nil
		}
		return nil, nil // the API's default when tools are given
	case sdk.ToolChoiceNone:
		if tools == 0 {
			return nil, nil // no tools: nothing to forbid, and the API refuses tool_choice without tools
		}
		return &wireChoice{Type: "none"}, nil
	case sdk.ToolChoiceRequired:
		if tools == 0 {
			return nil, sdk.Permanentf("tool choice %q needs at least one tool", tc.Mode)
		}
		return &wireChoice{Type: "any"}, nil
	case sdk.ToolChoiceTool:
		if tc.Name == "" {
			return nil, sdk.Permanentf("tool choice %q needs a tool name", tc.Mode)
		}
		if tools == 0 {
			return nil, sdk.Permanentf("tool choice %q needs at least one tool", tc.Mode)
		}
		return &wireChoice{Type: "tool", Name: tc.Name}, nil
	}
	return nil, sdk.Permanentf("unknown tool choice %q", tc.Mode)
}
