package api

import (
	"encoding/json"
	"fmt"

	"github.com/axonhq/axon/sdk"
)

// anthropicDialect is the Anthropic Messages wire format.
type anthropicDialect struct{}

var _ dialect = anthropicDialect{}

func (anthropicDialect) idPrefix() string { return "msg_" }

func (anthropicDialect) errorBody(e *wireError) (int, []byte) { return e.anthropic() }

// anthropicRequest is the part of a Messages request axon translates.
// anthropicFields sorts the rest: refused, or listed as ignored.
type anthropicRequest struct {
	Model         string                 `json:"model"`
	MaxTokens     *int                   `json:"max_tokens"`
	System        textOr[anthropicBlock] `json:"system"`
	Messages      []anthropicMessage     `json:"messages"`
	Tools         []anthropicTool        `json:"tools"`
	ToolChoice    *anthropicToolChoice   `json:"tool_choice"`
	Temperature   *float64               `json:"temperature"`
	StopSequences []string               `json:"stop_sequences"`
	Stream        bool                   `json:"stream"`
	Thinking      *anthropicThinkingOpt  `json:"thinking"`
	Metadata      json.RawMessage        `json:"metadata"` // only task is read: the task hint
	OutputConfig  *struct {
		Format *anthropicFormat `json:"format"`
	} `json:"output_config"`
	OutputFormat *anthropicFormat `json:"output_format"` // the older beta form of output_config.format
	// Passed to the provider plugins through sdk.Request.Options.
	TopP json.RawMessage `json:"top_p"`
	TopK json.RawMessage `json:"top_k"`
}

type anthropicMessage struct {
	Role    string                 `json:"role"`
	Content textOr[anthropicBlock] `json:"content"`
}

// anthropicBlock is any content block; Type says which fields apply.
type anthropicBlock struct {
	Type      string                 `json:"type"`
	Text      string                 `json:"text"`
	Source    *anthropicImage        `json:"source"`
	ID        string                 `json:"id"`
	Name      string                 `json:"name"`
	Input     json.RawMessage        `json:"input"`
	ToolUseID string                 `json:"tool_use_id"`
	Content   textOr[anthropicBlock] `json:"content"` // of a tool_result
	IsError   bool                   `json:"is_error"`
	Thinking  string                 `json:"thinking"`
	Signature string                 `json:"signature"`
	Data      string                 `json:"data"`
	Title     string                 `json:"title"`   // of a document
	Context   string                 `json:"context"` // of a document
	// Citations is a document's {"enabled": …}, or a text block's list of
	// citations echoed from an earlier answer (read whole, passed over).
	Citations    json.RawMessage `json:"citations"`
	CacheControl *cacheControl   `json:"cache_control"`
}

// anthropicImage is the source of an image or a document block.
type anthropicImage struct {
	Type      string     `json:"type"`
	MediaType string     `json:"media_type"`
	Data      base64Text `json:"data"`
	URL       string     `json:"url"`
}

type anthropicTool struct {
	Type         string          `json:"type"`
	Name         string          `json:"name"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"input_schema"`
	CacheControl *cacheControl   `json:"cache_control"`
}

type anthropicToolChoice struct {
	Type                   string `json:"type"`
	Name                   string `json:"name"`
	DisableParallelToolUse bool   `json:"disable_parallel_tool_use"`
}

type anthropicThinkingOpt struct {
	Type         string `json:"type"`
	BudgetTokens int    `json:"budget_tokens"`
}

// decode turns a Messages request into a call.
func (anthropicDialect) decode(body []byte) (*call, error) {
	var w anthropicRequest
	if err := decodeBody(body, &w); err != nil {
		return nil, err
	}
	if w.Model == "" {
		return nil, missing("model")
	}
	if w.MaxTokens == nil {
		return nil, missing("max_tokens")
	}
	if *w.MaxTokens < 1 {
		return nil, invalidf("max_tokens", "want at least 1, got %d", *w.MaxTokens)
	}
	if len(w.Messages) == 0 {
		return nil, missing("messages")
	}
	ignored, err := anthropicFields(body)
	if err != nil {
		return nil, err
	}
	req := &sdk.Request{MaxTokens: *w.MaxTokens, Temperature: w.Temperature, StopSequences: w.StopSequences}
	if req.System, err = anthropicSystem(w.System); err != nil {
		return nil, err
	}
	if req.Messages, err = anthropicMessages(w.Messages); err != nil {
		return nil, err
	}
	if req.Tools, err = anthropicTools(w.Tools); err != nil {
		return nil, err
	}
	if err = anthropicChoice(req, w.ToolChoice); err != nil {
		return nil, err
	}
	switch t := w.Thinking; {
	case t == nil:
	case t.Type == "enabled":
		if t.BudgetTokens < 1 {
			return nil, missing("thinking.budget_tokens")
		}
		setOption(req, "thinking_budget", mustJSON(t.BudgetTokens))
	case t.Type == "disabled":
		setOption(req, "thinking_budget", json.RawMessage("0"))
	case t.Type == "adaptive":
		// The model decides how much to think: what every provider does
		// without a budget, so nothing is sent, and the client is told.
		ignored.add("", []byte("thinking"))
	case t.Type == "":
		return nil, missing("thinking.type")
	default:
		return nil, invalidf("thinking.type", `unknown type %q: want "enabled", "disabled" or "adaptive"`, t.Type)
	}
	switch {
	case w.OutputConfig != nil && w.OutputConfig.Format != nil:
		req.Output, err = anthropicOutput("output_config.format", w.OutputConfig.Format)
	case w.OutputFormat != nil:
		req.Output, err = anthropicOutput("output_format", w.OutputFormat)
	}
	if err != nil {
		return nil, err
	}
	setOption(req, "top_p", w.TopP)
	setOption(req, "top_k", w.TopK)
	task, err := metadataTask(w.Metadata)
	if err != nil {
		return nil, err
	}
	return &call{model: w.Model, req: req, stream: w.Stream, task: task, ignored: ignored.header()}, nil
}

// anthropicSystem reads system: a string or a list of text blocks.
func anthropicSystem(sys textOr[anthropicBlock]) ([]sdk.Text, error) {
	switch {
	case !sys.set:
		return nil, nil
	case sys.bad:
		return nil, invalidf("system", "want a string or a list of text blocks")
	case sys.isText:
		return sdk.SystemPrompt(sys.text), nil
	}
	texts := make([]sdk.Text, 0, len(sys.list))
	for i, b := range sys.list {
		if b.Type != "text" {
			return nil, unsupportedf(fmt.Sprintf("system[%d].type", i), "%q is not supported: only text", b.Type)
		}
		var cache sdk.Cache
		if b.CacheControl != nil {
			var err error
			if cache, err = cacheOf(fmt.Sprintf("system[%d]", i), b.CacheControl); err != nil {
				return nil, err
			}
		}
		texts = append(texts, sdk.Text{Text: b.Text, Cache: cache})
	}
	return texts, nil
}

// anthropicMessages reads the conversation. The tool_result blocks of a
// user turn become a canonical tool turn ahead of the rest of that turn,
// which is where the Messages API requires them to be anyway.
func anthropicMessages(in []anthropicMessage) ([]sdk.Message, error) {
	out := make([]sdk.Message, 0, len(in))
	names := toolNames{}
	for i, m := range in {
		param := fmt.Sprintf("messages[%d]", i)
		blocks, err := anthropicContent(param+".content", m.Content)
		if err != nil {
			return nil, err
		}
		switch m.Role {
		case "user":
			var results, rest []sdk.Part
			for j, b := range blocks {
				p, err := anthropicUserPart(fmt.Sprintf("%s.content[%d]", param, j), b, names)
				if err != nil {
					return nil, err
				}
				if _, ok := p.(sdk.ToolResult); ok {
					results = append(results, p)
				} else {
					rest = append(rest, p)
				}
			}
			if len(results) > 0 {
				out = append(out, sdk.Message{Role: sdk.RoleTool, Parts: results})
			}
			if len(rest) > 0 || len(results) == 0 {
				out = append(out, sdk.Message{Role: sdk.RoleUser, Parts: rest})
			}
		case "assistant":
			parts := make([]sdk.Part, 0, len(blocks))
			for j, b := range blocks {
				p, err := anthropicAssistantPart(fmt.Sprintf("%s.content[%d]", param, j), b, names)
				if err != nil {
					return nil, err
				}
				parts = append(parts, p)
			}
			out = append(out, sdk.Message{Role: sdk.RoleAssistant, Parts: parts})
		case "":
			return nil, missing(param + ".role")
		default:
			return nil, invalidf(param+".role", `unknown role %q: want "user" or "assistant" (the system prompt is the top-level system field)`, m.Role)
		}
	}
	return out, nil
}

// anthropicContent reads content: a string (one text block) or blocks.
func anthropicContent(param string, c textOr[anthropicBlock]) ([]anthropicBlock, error) {
	switch {
	case !c.set:
		return nil, missing(param)
	case c.bad:
		return nil, invalidf(param, "want a string or a list of content blocks")
	case c.isText:
		return []anthropicBlock{{Type: "text", Text: c.text}}, nil
	}
	return c.list, nil
}

func anthropicUserPart(param string, b anthropicBlock, names toolNames) (sdk.Part, error) {
	cache, err := cacheOf(param, b.CacheControl)
	if err != nil {
		return nil, err
	}
	switch b.Type {
	case "text":
		return sdk.Text{Text: b.Text, Cache: cache}, nil
	case "image":
		return anthropicImagePart(param+".source", b.Source, cache)
	case "document":
		return anthropicDocument(param, b, cache)
	case "tool_result":
		if b.ToolUseID == "" {
			return nil, missing(param + ".tool_use_id")
		}
		if !names.has(b.ToolUseID) {
			return nil, invalidf(param+".tool_use_id", "%q answers no tool call: no assistant turn before it has a tool_use block with this id", b.ToolUseID)
		}
		content, err := anthropicResultContent(param+".content", b.Content)
		if err != nil {
			return nil, err
		}
		return sdk.ToolResult{CallID: b.ToolUseID, Name: names[b.ToolUseID], Content: content, IsError: b.IsError, Cache: cache}, nil
	}
	return nil, unsupportedf(param+".type", "%q is not supported in a user turn: only text, image, document and tool_result", b.Type)
}

func anthropicAssistantPart(param string, b anthropicBlock, names toolNames) (sdk.Part, error) {
	cache, err := cacheOf(param, b.CacheControl)
	if err != nil {
		return nil, err
	}
	switch b.Type {
	case "text":
		return sdk.Text{Text: b.Text, Cache: cache}, nil
	case "thinking":
		return sdk.Reasoning{Text: b.Thinking, Signature: b.Signature}, nil
	case "redacted_thinking":
		if b.Data == "" {
			return nil, missing(param + ".data")
		}
		return sdk.Reasoning{Redacted: b.Data}, nil
	case "tool_use":
		if b.ID == "" {
			return nil, missing(param + ".id")
		}
		if b.Name == "" {
			return nil, missing(param + ".name")
		}
		input, err := toolInput(param+".input", b.Input)
		if err != nil {
			return nil, err
		}
		names.add(b.ID, b.Name)
		return sdk.ToolCall{ID: b.ID, Name: b.Name, Input: input, Cache: cache}, nil
	}
	return nil, unsupportedf(param+".type", "%q is not supported in an assistant turn: only text, thinking, redacted_thinking and tool_use", b.Type)
}

func anthropicImagePart(param string, src *anthropicImage, cache sdk.Cache) (sdk.Part, error) {
	if src == nil {
		return nil, missing(param)
	}
	var (
		img sdk.Image
		err error
	)
	switch src.Type {
	case "base64":
		if src.MediaType == "" {
			return nil, missing(param + ".media_type")
		}
		if src.Data.done {
			img = sdk.Image{MediaType: src.MediaType, Data: src.Data.data}
		} else {
			img, err = base64Image(param+".data", src.MediaType, src.Data.s)
		}
	case "url":
		img, err = remoteImage(param+".url", src.URL)
	default:
		return nil, unsupportedf(param+".type", "%q is not supported: only base64 and url", src.Type)
	}
	if err != nil {
		return nil, err
	}
	img.Cache = cache
	return img, nil
}

// anthropicResultContent reads a tool result's content: a string, or text
// and image blocks.
func anthropicResultContent(param string, c textOr[anthropicBlock]) ([]sdk.Part, error) {
	if !c.set {
		return nil, nil
	}
	blocks, err := anthropicContent(param, c)
	if err != nil {
		return nil, err
	}
	parts := make([]sdk.Part, 0, len(blocks))
	for i, b := range blocks {
		bp := fmt.Sprintf("%s[%d]", param, i)
		cache, err := cacheOf(bp, b.CacheControl)
		if err != nil {
			return nil, err
		}
		switch b.Type {
		case "text":
			parts = append(parts, sdk.Text{Text: b.Text, Cache: cache})
		case "image":
			img, err := anthropicImagePart(bp+".source", b.Source, cache)
			if err != nil {
				return nil, err
			}
			parts = append(parts, img)
		case "document":
			doc, err := anthropicDocument(bp, b, cache)
			if err != nil {
				return nil, err
			}
			parts = append(parts, doc)
		default:
			return nil, unsupportedf(bp+".type", "%q is not supported in a tool result: only text, image and document", b.Type)
		}
	}
	return parts, nil
}

// anthropicTools reads client tools. Anthropic's server tools (web search,
// code execution, ...) run on Anthropic's side and cannot cross providers.
func anthropicTools(tools []anthropicTool) ([]sdk.ToolSpec, error) {
	out := make([]sdk.ToolSpec, 0, len(tools))
	for i, t := range tools {
		param := fmt.Sprintf("tools[%d]", i)
		if t.Type != "" && t.Type != "custom" {
			return nil, unsupportedf(param+".type", "server tool %q is not supported: only client tools with an input_schema", t.Type)
		}
		if t.Name == "" {
			return nil, missing(param + ".name")
		}
		s, err := schema(param+".input_schema", t.InputSchema)
		if err != nil {
			return nil, err
		}
		cache, err := cacheOf(param, t.CacheControl)
		if err != nil {
			return nil, err
		}
		out = append(out, sdk.ToolSpec{Name: t.Name, Description: t.Description, InputSchema: s, Cache: cache})
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

// anthropicChoice reads tool_choice: auto, any, none, or tool with a name.
// disable_parallel_tool_use makes it Sequential.
func anthropicChoice(req *sdk.Request, c *anthropicToolChoice) error {
	if c == nil {
		return nil
	}
	switch c.Type {
	case "auto", "":
		req.ToolChoice = sdk.ToolChoice{Mode: sdk.ToolChoiceAuto}
	case "any":
		req.ToolChoice = sdk.ToolChoice{Mode: sdk.ToolChoiceRequired}
	case "none":
		req.ToolChoice = sdk.ToolChoice{Mode: sdk.ToolChoiceNone}
	case "tool":
		if c.Name == "" {
			return missing("tool_choice.name")
		}
		req.ToolChoice = sdk.ToolChoice{Mode: sdk.ToolChoiceTool, Name: c.Name}
	default:
		return invalidf("tool_choice.type", `unknown type %q: want "auto", "any", "none" or "tool"`, c.Type)
	}
	req.ToolChoice.Sequential = c.DisableParallelToolUse
	return nil
}
