package api

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/axonhq/axon/sdk"
)

// openaiDialect is the OpenAI Chat Completions wire format.
type openaiDialect struct{}

var _ dialect = openaiDialect{}

func (openaiDialect) idPrefix() string { return "chatcmpl-" }

func (openaiDialect) errorBody(e *wireError) (int, []byte) { return e.openai() }

// openaiRequest is the part of a Chat Completions request axon
// translates. openaiFields sorts the rest: refused, or listed as ignored.
type openaiRequest struct {
	Model               string           `json:"model"`
	Messages            []openaiMessage  `json:"messages"`
	Tools               []openaiTool     `json:"tools"`
	Functions           []openaiFunction `json:"functions"` // deprecated form of tools
	ToolChoice          json.RawMessage  `json:"tool_choice"`
	FunctionCall        json.RawMessage  `json:"function_call"` // deprecated form of tool_choice
	MaxTokens           *int             `json:"max_tokens"`
	MaxCompletionTokens *int             `json:"max_completion_tokens"`
	Temperature         *float64         `json:"temperature"`
	Stop                json.RawMessage  `json:"stop"`
	Stream              bool             `json:"stream"`
	StreamOptions       *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	N        *int            `json:"n"`
	Metadata json.RawMessage `json:"metadata"` // only task is read: the task hint

	ResponseFormat    *openaiResponseFormat `json:"response_format"`
	ParallelToolCalls *bool                 `json:"parallel_tool_calls"`

	// Knobs passed to the provider plugins through sdk.Request.Options,
	// under the same names.
	ReasoningEffort json.RawMessage `json:"reasoning_effort"`
	TopP            json.RawMessage `json:"top_p"`
	Seed            json.RawMessage `json:"seed"`
}

type openaiMessage struct {
	Role             string             `json:"role"`
	Content          textOr[openaiPart] `json:"content"`
	ToolCalls        []openaiToolCall   `json:"tool_calls"`
	ToolCallID       string             `json:"tool_call_id"`
	ReasoningContent string             `json:"reasoning_content"` // DeepSeek and others
	Reasoning        string             `json:"reasoning"`         // OpenRouter and others
}

type openaiToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type openaiTool struct {
	Type     string         `json:"type"`
	Function openaiFunction `json:"function"`
}

type openaiFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

type openaiPart struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	Refusal  string `json:"refusal"`
	ImageURL struct {
		URL dataOrURL `json:"url"`
	} `json:"image_url"`
	File         *openaiFile   `json:"file"`
	CacheControl *cacheControl `json:"cache_control"` // the OpenRouter convention
}

// openaiFile is a file content part: a PDF inline, or a file id.
type openaiFile struct {
	FileData dataOrURL `json:"file_data"`
	Filename string    `json:"filename"`
	FileID   string    `json:"file_id"`
}

// decode turns a Chat Completions request into a call.
func (openaiDialect) decode(body []byte) (*call, error) {
	var w openaiRequest
	if err := decodeBody(body, &w); err != nil {
		return nil, err
	}
	if w.Model == "" {
		return nil, missing("model")
	}
	if len(w.Messages) == 0 {
		return nil, missing("messages")
	}
	if w.N != nil && *w.N != 1 {
		return nil, unsupportedf("n", "only one choice (n=1) is supported")
	}
	ignored, err := openaiFields(body)
	if err != nil {
		return nil, err
	}
	req := &sdk.Request{Temperature: w.Temperature}
	if req.MaxTokens, err = openaiMaxTokens(w); err != nil {
		return nil, err
	}
	if req.StopSequences, err = openaiStop(w.Stop); err != nil {
		return nil, err
	}
	if req.System, req.Messages, err = openaiMessages(w.Messages); err != nil {
		return nil, err
	}
	if req.Tools, err = openaiTools(w.Tools, w.Functions); err != nil {
		return nil, err
	}
	if req.ToolChoice, err = openaiToolChoice(w.ToolChoice, w.FunctionCall); err != nil {
		return nil, err
	}
	if w.ParallelToolCalls != nil && !*w.ParallelToolCalls {
		req.ToolChoice.Sequential = true
	}
	if req.Output, err = openaiOutput(w.ResponseFormat); err != nil {
		return nil, err
	}
	setOption(req, "reasoning_effort", w.ReasoningEffort)
	setOption(req, "top_p", w.TopP)
	setOption(req, "seed", w.Seed)
	task, err := metadataTask(w.Metadata)
	if err != nil {
		return nil, err
	}
	return &call{
		model:        w.Model,
		req:          req,
		stream:       w.Stream,
		includeUsage: w.Stream && w.StreamOptions != nil && w.StreamOptions.IncludeUsage,
		task:         task,
		ignored:      ignored.header(),
	}, nil
}

// openaiMaxTokens prefers max_completion_tokens, the current name.
func openaiMaxTokens(w openaiRequest) (int, error) {
	name, n := "max_completion_tokens", w.MaxCompletionTokens
	if n == nil {
		name, n = "max_tokens", w.MaxTokens
	}
	if n == nil {
		return 0, nil
	}
	if *n < 1 {
		return 0, invalidf(name, "want at least 1, got %d", *n)
	}
	return *n, nil
}

// openaiStop reads stop: a string or a list of strings.
func openaiStop(raw json.RawMessage) ([]string, error) {
	if absent(raw) {
		return nil, nil
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}, nil
	}
	var list []string
	if err := decodeField("stop", raw, &list, "a string or a list of strings"); err != nil {
		return nil, err
	}
	return list, nil
}

// openaiMessages lays the conversation out canonically: the system and
// developer messages before the first other message form the system
// prompt; later ones stay system messages in place. Consecutive tool
// messages become one tool turn.
func openaiMessages(in []openaiMessage) ([]sdk.Text, []sdk.Message, error) {
	var (
		system  []sdk.Text
		out     []sdk.Message
		names   = toolNames{}
		leading = true
	)
	for i, m := range in {
		param := fmt.Sprintf("messages[%d]", i)
		switch m.Role {
		case "system", "developer":
			text, cache, err := openaiText(param+".content", m.Content)
			if err != nil {
				return nil, nil, err
			}
			if leading {
				system = append(system, sdk.Text{Text: text, Cache: cache})
				continue
			}
			out = append(out, sdk.Message{Role: sdk.RoleSystem, Parts: []sdk.Part{sdk.Text{Text: text, Cache: cache}}})
		case "user":
			parts, err := openaiUserParts(param+".content", m.Content)
			if err != nil {
				return nil, nil, err
			}
			out = append(out, sdk.Message{Role: sdk.RoleUser, Parts: parts})
		case "assistant":
			parts, err := openaiAssistantParts(param, m, names)
			if err != nil {
				return nil, nil, err
			}
			out = append(out, sdk.Message{Role: sdk.RoleAssistant, Parts: parts})
		case "tool":
			if m.ToolCallID == "" {
				return nil, nil, missing(param + ".tool_call_id")
			}
			if !names.has(m.ToolCallID) {
				return nil, nil, invalidf(param+".tool_call_id", "%q answers no tool call: no assistant message before it has a tool call with this id", m.ToolCallID)
			}
			text, cache, err := openaiText(param+".content", m.Content)
			if err != nil {
				return nil, nil, err
			}
			result := sdk.ToolResult{CallID: m.ToolCallID, Name: names[m.ToolCallID], Content: []sdk.Part{sdk.Text{Text: text}}, Cache: cache}
			if n := len(out); n > 0 && out[n-1].Role == sdk.RoleTool {
				out[n-1].Parts = append(out[n-1].Parts, result)
			} else {
				out = append(out, sdk.Message{Role: sdk.RoleTool, Parts: []sdk.Part{result}})
			}
		case "function":
			return nil, nil, unsupportedf(param+".role", `role "function" (deprecated) is not supported: send tool results as role "tool" with a tool_call_id`)
		case "":
			return nil, nil, missing(param + ".role")
		default:
			return nil, nil, invalidf(param+".role", "unknown role %q", m.Role)
		}
		leading = leading && (m.Role == "system" || m.Role == "developer")
	}
	return system, out, nil
}

// openaiText reads content that may only hold text: a string or a list of
// text parts, joined. A cache breakpoint on any of the parts applies at the
// end of the joined text (the last one sent wins).
func openaiText(param string, c textOr[openaiPart]) (string, sdk.Cache, error) {
	switch {
	case !c.set:
		return "", sdk.CacheNone, nil
	case c.bad:
		return "", sdk.CacheNone, invalidf(param, "want a string or a list of content parts")
	case c.isText:
		return c.text, sdk.CacheNone, nil
	}
	var (
		b     strings.Builder
		cache sdk.Cache
	)
	for i, p := range c.list {
		pp := fmt.Sprintf("%s[%d]", param, i)
		switch p.Type {
		case "text":
			b.WriteString(p.Text)
		case "refusal":
			b.WriteString(p.Refusal)
		default:
			return "", sdk.CacheNone, unsupportedf(pp+".type", "%q is not supported here: only text", p.Type)
		}
		pc, err := cacheOf(pp, p.CacheControl)
		if err != nil {
			return "", sdk.CacheNone, err
		}
		if pc != sdk.CacheNone {
			cache = pc
		}
	}
	return b.String(), cache, nil
}

// openaiUserParts reads user content: a string, or text and image parts.
func openaiUserParts(param string, c textOr[openaiPart]) ([]sdk.Part, error) {
	switch {
	case !c.set:
		return nil, missing(param)
	case c.bad:
		return nil, invalidf(param, "want a string or a list of content parts")
	case c.isText:
		return []sdk.Part{sdk.Text{Text: c.text}}, nil
	}
	out := make([]sdk.Part, 0, len(c.list))
	for i, p := range c.list {
		pp := fmt.Sprintf("%s[%d]", param, i)
		cache, err := cacheOf(pp, p.CacheControl)
		if err != nil {
			return nil, err
		}
		switch p.Type {
		case "text":
			out = append(out, sdk.Text{Text: p.Text, Cache: cache})
		case "image_url":
			img, err := openaiImage(pp+".image_url.url", p.ImageURL.URL)
			if err != nil {
				return nil, err
			}
			img.Cache = cache
			out = append(out, img)
		case "file":
			doc, err := openaiDocument(pp+".file", p.File)
			if err != nil {
				return nil, err
			}
			doc.Cache = cache
			out = append(out, doc)
		default:
			return nil, unsupportedf(pp+".type", "%q is not supported: only text, image_url and file", p.Type)
		}
	}
	return out, nil
}

// openaiDocument reads a file part: file_data, a data URL (or bare base64)
// of a PDF. A file_id names a file in OpenAI's file store, which axon has
// no copy of.
func openaiDocument(param string, f *openaiFile) (sdk.Document, error) {
	if f == nil {
		return sdk.Document{}, missing(param)
	}
	if f.FileID != "" {
		return sdk.Document{}, unsupportedf(param+".file_id", "file ids are not supported: axon has no file store; send the file inline as file_data")
	}
	doc := sdk.Document{MediaType: "application/pdf", Title: f.Filename}
	d := f.FileData
	switch {
	case d.done:
		if d.mediaType != "" {
			doc.MediaType = d.mediaType
		}
		doc.Data = d.data
	case d.s == "":
		return sdk.Document{}, missing(param + ".file_data")
	case strings.HasPrefix(d.s, "data:"):
		img, err := dataURLImage(param+".file_data", d.s)
		if err != nil {
			return sdk.Document{}, err
		}
		doc.MediaType, doc.Data = img.MediaType, img.Data
	default:
		img, err := base64Image(param+".file_data", doc.MediaType, d.s)
		if err != nil {
			return sdk.Document{}, err
		}
		doc.Data = img.Data
	}
	if doc.MediaType != "application/pdf" {
		return sdk.Document{}, unsupportedf(param+".file_data", "media type %q is not supported: only application/pdf", doc.MediaType)
	}
	return doc, nil
}

// openaiOutput reads response_format: text (nil), json_object, or
// json_schema with its name, schema and strict flag.
func openaiOutput(f *openaiResponseFormat) (*sdk.Output, error) {
	if f == nil {
		return nil, nil
	}
	switch f.Type {
	case "text":
		return nil, nil
	case "json_object":
		return &sdk.Output{Kind: sdk.OutputJSON}, nil
	case "json_schema":
		js := f.JSONSchema
		if js == nil {
			return nil, missing("response_format.json_schema")
		}
		s, err := outputSchema("response_format.json_schema.schema", js.Schema)
		if err != nil {
			return nil, err
		}
		return &sdk.Output{Kind: sdk.OutputJSONSchema, Name: js.Name, Schema: s, Strict: js.Strict != nil && *js.Strict}, nil
	case "":
		return nil, missing("response_format.type")
	}
	return nil, invalidf("response_format.type", `unknown type %q: want "text", "json_object" or "json_schema"`, f.Type)
}

func openaiImage(param string, url dataOrURL) (sdk.Image, error) {
	switch {
	case url.done:
		return sdk.Image{MediaType: url.mediaType, Data: url.data}, nil
	case url.s == "":
		return sdk.Image{}, missing(param)
	case strings.HasPrefix(url.s, "data:"):
		return dataURLImage(param, url.s)
	}
	return remoteImage(param, url.s)
}

// openaiAssistantParts reads an assistant turn: its reasoning, text, then
// tool calls, in the order a model produces them.
func openaiAssistantParts(param string, m openaiMessage, names toolNames) ([]sdk.Part, error) {
	var parts []sdk.Part
	if r := m.ReasoningContent + m.Reasoning; r != "" {
		parts = append(parts, sdk.Reasoning{Text: r})
	}
	text, cache, err := openaiText(param+".content", m.Content)
	if err != nil {
		return nil, err
	}
	if text != "" {
		parts = append(parts, sdk.Text{Text: text, Cache: cache})
	}
	for j, tc := range m.ToolCalls {
		tp := fmt.Sprintf("%s.tool_calls[%d]", param, j)
		if tc.Type != "" && tc.Type != "function" {
			return nil, unsupportedf(tp+".type", "%q is not supported: only function", tc.Type)
		}
		if tc.ID == "" {
			return nil, missing(tp + ".id")
		}
		if tc.Function.Name == "" {
			return nil, missing(tp + ".function.name")
		}
		input, err := toolInput(tp+".function.arguments", []byte(tc.Function.Arguments))
		if err != nil {
			return nil, err
		}
		names.add(tc.ID, tc.Function.Name)
		parts = append(parts, sdk.ToolCall{ID: tc.ID, Name: tc.Function.Name, Input: input})
	}
	return parts, nil
}

// openaiTools reads tools, and the deprecated functions list.
func openaiTools(tools []openaiTool, functions []openaiFunction) ([]sdk.ToolSpec, error) {
	var out []sdk.ToolSpec
	add := func(param string, f openaiFunction) error {
		if f.Name == "" {
			return missing(param + ".name")
		}
		s, err := schema(param+".parameters", f.Parameters)
		if err != nil {
			return err
		}
		out = append(out, sdk.ToolSpec{Name: f.Name, Description: f.Description, InputSchema: s})
		return nil
	}
	for i, t := range tools {
		param := fmt.Sprintf("tools[%d]", i)
		if t.Type != "" && t.Type != "function" {
			return nil, unsupportedf(param+".type", "%q is not supported: only function tools", t.Type)
		}
		if err := add(param+".function", t.Function); err != nil {
			return nil, err
		}
	}
	for i, f := range functions {
		if err := add(fmt.Sprintf("functions[%d]", i), f); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// openaiToolChoice reads tool_choice ("auto", "none", "required" or its
// Mistral alias "any", or {"type":"function","function":{"name":...}}), or
// the deprecated
// function_call ("auto", "none", or {"name":...}).
func openaiToolChoice(choice, functionCall json.RawMessage) (sdk.ToolChoice, error) {
	param, raw := "tool_choice", choice
	if absent(raw) {
		param, raw = "function_call", functionCall
	}
	if absent(raw) {
		return sdk.ToolChoice{}, nil
	}
	var mode string
	if json.Unmarshal(raw, &mode) == nil {
		switch mode {
		case "auto":
			return sdk.ToolChoice{Mode: sdk.ToolChoiceAuto}, nil
		case "none":
			return sdk.ToolChoice{Mode: sdk.ToolChoiceNone}, nil
		case "required", "any": // "any": Mistral's word for required
			if param == "tool_choice" {
				return sdk.ToolChoice{Mode: sdk.ToolChoiceRequired}, nil
			}
		}
		return sdk.ToolChoice{}, invalidf(param, "unknown mode %q", mode)
	}
	var named struct {
		Type     string `json:"type"`
		Name     string `json:"name"` // function_call
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	}
	if err := decodeField(param, raw, &named, `"auto", "none", "required" or a named function`); err != nil {
		return sdk.ToolChoice{}, err
	}
	name, nameParam := named.Function.Name, param+".function.name"
	if param == "function_call" {
		name, nameParam = named.Name, param+".name"
	} else if named.Type != "function" {
		return sdk.ToolChoice{}, unsupportedf(param+".type", "%q is not supported: only function", named.Type)
	}
	if name == "" {
		return sdk.ToolChoice{}, missing(nameParam)
	}
	return sdk.ToolChoice{Mode: sdk.ToolChoiceTool, Name: name}, nil
}
