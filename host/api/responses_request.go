package api

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/axonhq/axon/sdk"
)

// responsesDialect is the OpenAI Responses API wire format (POST
// /v1/responses). Its errors have the OpenAI shape. The handler gives each
// request a dialect holding its call, whose fields the response object
// echoes.
type responsesDialect struct{ c *call }

var _ dialect = responsesDialect{}

func (responsesDialect) idPrefix() string { return "resp_" }

func (responsesDialect) errorBody(e *wireError) (int, []byte) { return e.openai() }

// decode is decodeResponses without a stored conversation before it: the
// handler resolves previous_response_id first (responses_store.go).
func (responsesDialect) decode(body []byte) (*call, error) { return decodeResponses(body, nil) }

// responsesRequest is the part of a Responses request axon translates;
// responsesFields sorts the rest: refused, or listed as ignored.
type responsesRequest struct {
	Model             string          `json:"model"`
	Input             json.RawMessage `json:"input"`
	Instructions      *string         `json:"instructions"`
	Tools             []responsesTool `json:"tools"`
	ToolChoice        json.RawMessage `json:"tool_choice"`
	ParallelToolCalls *bool           `json:"parallel_tool_calls"`
	MaxOutputTokens   *int            `json:"max_output_tokens"`
	Temperature       *float64        `json:"temperature"`
	TopP              json.RawMessage `json:"top_p"`
	Text              *responsesText  `json:"text"`
	Reasoning         *struct {
		Effort json.RawMessage `json:"effort"`
	} `json:"reasoning"`
	Metadata           json.RawMessage `json:"metadata"`
	Store              *bool           `json:"store"`
	Stream             bool            `json:"stream"`
	PreviousResponseID string          `json:"previous_response_id"`
}

type responsesTool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
	Strict      *bool           `json:"strict,omitempty"`
}

type responsesText struct {
	Format *struct {
		Type   string          `json:"type"`
		Name   string          `json:"name"`
		Schema json.RawMessage `json:"schema"`
		Strict *bool           `json:"strict"`
	} `json:"format"`
}

// responsesItem is one input item: a message (type "message", or no type
// with a role), a function_call, a function_call_output or a reasoning
// item.
type responsesItem struct {
	Type      string                `json:"type"`
	Role      string                `json:"role"`
	Content   textOr[responsesPart] `json:"content"`
	CallID    string                `json:"call_id"`
	Name      string                `json:"name"`
	Arguments string                `json:"arguments"`
	Output    textOr[responsesPart] `json:"output"`
	Summary   []struct {
		Text string `json:"text"`
	} `json:"summary"`
}

// responsesPart is one content part of a message or a function output.
type responsesPart struct {
	Type     string    `json:"type"` // input_text, output_text, refusal, input_image, input_file
	Text     string    `json:"text"`
	Refusal  string    `json:"refusal"`
	ImageURL dataOrURL `json:"image_url"`
	FileData dataOrURL `json:"file_data"`
	FileURL  string    `json:"file_url"`
	FileID   string    `json:"file_id"`
	Filename string    `json:"filename"`
}

// responsesCall is what the Responses API needs of a request beyond the
// canonical one: whether to keep the response, the conversation it
// continues, its input as items (kept with the response), and the fields
// its response object echoes.
type responsesCall struct {
	store    bool
	asked    bool // store was sent true, not defaulted
	previous string
	items    []json.RawMessage // the whole conversation's input items: stored ones, then the request's
	echo     responsesEcho
}

// responsesEcho is what a response object repeats of its request.
type responsesEcho struct {
	Instructions      *string
	MaxOutputTokens   *int
	Temperature       *float64
	TopP              json.RawMessage
	ToolChoice        json.RawMessage
	Tools             []responsesTool
	ParallelToolCalls bool
	Text              json.RawMessage
	Effort            json.RawMessage
	Metadata          json.RawMessage
}

// decodeResponses turns a Responses request into a call. prior is the
// conversation previous_response_id names, as input items (its inputs
// and outputs in order), read before this request's input.
func decodeResponses(body []byte, prior []json.RawMessage) (*call, error) {
	var w responsesRequest
	if err := decodeBody(body, &w); err != nil {
		return nil, err
	}
	if w.Model == "" {
		return nil, missing("model")
	}
	ignored, err := responsesFields(body)
	if err != nil {
		return nil, err
	}
	input, err := responsesInput(w.Input)
	if err != nil {
		return nil, err
	}
	items := append(append(make([]json.RawMessage, 0, len(prior)+len(input)), prior...), input...)
	req := &sdk.Request{Temperature: w.Temperature}
	if w.Instructions != nil && *w.Instructions != "" {
		req.System = []sdk.Text{{Text: *w.Instructions}}
	}
	system, msgs, err := responsesMessages(items, len(prior))
	if err != nil {
		return nil, err
	}
	req.System, req.Messages = append(req.System, system...), msgs
	if len(req.Messages) == 0 {
		return nil, missing("input")
	}
	if w.MaxOutputTokens != nil {
		if *w.MaxOutputTokens < 1 {
			return nil, invalidf("max_output_tokens", "want at least 1, got %d", *w.MaxOutputTokens)
		}
		req.MaxTokens = *w.MaxOutputTokens
	}
	if req.Tools, err = responsesTools(w.Tools); err != nil {
		return nil, err
	}
	if req.ToolChoice, err = responsesToolChoice(w.ToolChoice); err != nil {
		return nil, err
	}
	if w.ParallelToolCalls != nil && !*w.ParallelToolCalls {
		req.ToolChoice.Sequential = true
	}
	if w.Text != nil {
		if req.Output, err = responsesOutput(w.Text); err != nil {
			return nil, err
		}
	}
	setOption(req, "top_p", w.TopP)
	echo := responsesEcho{
		Instructions: w.Instructions, MaxOutputTokens: w.MaxOutputTokens, Temperature: w.Temperature,
		TopP: w.TopP, ToolChoice: w.ToolChoice, Tools: w.Tools, ParallelToolCalls: w.ParallelToolCalls == nil || *w.ParallelToolCalls,
		Metadata: w.Metadata,
	}
	if w.Text != nil {
		echo.Text, _ = json.Marshal(w.Text)
	}
	if w.Reasoning != nil {
		setOption(req, "reasoning_effort", w.Reasoning.Effort)
		echo.Effort = w.Reasoning.Effort
	}
	task, err := metadataTask(w.Metadata)
	if err != nil {
		return nil, err
	}
	return &call{
		model:   w.Model,
		req:     req,
		stream:  w.Stream,
		task:    task,
		ignored: ignored.header(),
		responses: &responsesCall{
			store: w.Store == nil || *w.Store, asked: w.Store != nil && *w.Store, previous: w.PreviousResponseID,
			items: items, echo: echo,
		},
	}, nil
}

// responsesInput reads input: a string (one user message) or a list of
// items, each kept as sent for the stored conversation.
func responsesInput(raw json.RawMessage) ([]json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if absent(raw) {
		return nil, missing("input")
	}
	if raw[0] == '"' {
		var text string
		if err := json.Unmarshal(raw, &text); err != nil {
			return nil, invalidf("input", "want a string or a list of items")
		}
		item, _ := json.Marshal(map[string]string{"type": "message", "role": "user", "content": text})
		return []json.RawMessage{item}, nil
	}
	var items []json.RawMessage
	if err := decodeField("input", raw, &items, "a string or a list of items"); err != nil {
		return nil, err
	}
	return items, nil
}

// responsesMessages lays the items out canonically: leading system and
// developer messages form the system prompt; an assistant message, the
// function calls and reasoning after it form one assistant turn;
// consecutive function_call_output items one tool turn. Items before
// first are the stored conversation: errors name their index in the
// request's own input otherwise.
func responsesMessages(items []json.RawMessage, first int) ([]sdk.Text, []sdk.Message, error) {
	var (
		system  []sdk.Text
		out     []sdk.Message
		names   = toolNames{}
		leading = true
	)
	// appendTo adds parts to a turn of role: the last message when it has
	// that role already, else a new one.
	appendTo := func(role sdk.Role, parts ...sdk.Part) {
		if n := len(out); n > 0 && out[n-1].Role == role {
			out[n-1].Parts = append(out[n-1].Parts, parts...)
			return
		}
		out = append(out, sdk.Message{Role: role, Parts: parts})
	}
	for i, raw := range items {
		param := fmt.Sprintf("input[%d]", i-first)
		if i < first {
			param = fmt.Sprintf("previous_response_id: item %d", i)
		}
		var it responsesItem
		if err := decodeField(param, raw, &it, "an input item object"); err != nil {
			return nil, nil, err
		}
		switch it.Type {
		case "", "message":
			switch it.Role {
			case "system", "developer":
				text, err := responsesTextOf(param+".content", it.Content)
				if err != nil {
					return nil, nil, err
				}
				if leading {
					system = append(system, sdk.Text{Text: text})
					continue
				}
				out = append(out, sdk.Message{Role: sdk.RoleSystem, Parts: []sdk.Part{sdk.Text{Text: text}}})
			case "user":
				parts, err := responsesUserParts(param+".content", it.Content)
				if err != nil {
					return nil, nil, err
				}
				out = append(out, sdk.Message{Role: sdk.RoleUser, Parts: parts})
			case "assistant":
				text, err := responsesTextOf(param+".content", it.Content)
				if err != nil {
					return nil, nil, err
				}
				if text != "" {
					appendTo(sdk.RoleAssistant, sdk.Text{Text: text})
				}
			case "":
				return nil, nil, missing(param + ".role")
			default:
				return nil, nil, invalidf(param+".role", "unknown role %q", it.Role)
			}
		case "function_call":
			if it.CallID == "" {
				return nil, nil, missing(param + ".call_id")
			}
			if it.Name == "" {
				return nil, nil, missing(param + ".name")
			}
			input, err := toolInput(param+".arguments", []byte(it.Arguments))
			if err != nil {
				return nil, nil, err
			}
			names.add(it.CallID, it.Name)
			appendTo(sdk.RoleAssistant, sdk.ToolCall{ID: it.CallID, Name: it.Name, Input: input})
		case "function_call_output":
			if it.CallID == "" {
				return nil, nil, missing(param + ".call_id")
			}
			if !names.has(it.CallID) {
				return nil, nil, invalidf(param+".call_id", "%q answers no function call: no function_call item before it has this call_id", it.CallID)
			}
			content, err := responsesUserParts(param+".output", it.Output)
			if err != nil {
				return nil, nil, err
			}
			for j, p := range content {
				if _, ok := p.(sdk.Document); ok {
					return nil, nil, unsupportedf(fmt.Sprintf("%s.output[%d].type", param, j), "a function's output holds text and images only: send the file in a user message")
				}
			}
			appendTo(sdk.RoleTool, sdk.ToolResult{CallID: it.CallID, Name: names[it.CallID], Content: content})
		case "reasoning":
			// The summary is what a model showed of its reasoning; its
			// encrypted_content only means something to OpenAI, which
			// axon's own provider plugin keeps in its own form.
			var text []byte
			for _, s := range it.Summary {
				text = append(text, s.Text...)
			}
			if len(text) > 0 {
				appendTo(sdk.RoleAssistant, sdk.Reasoning{Text: string(text)})
			}
		case "item_reference":
			return nil, nil, unsupportedf(param+".type", "item references are not supported: send the item itself, or continue with previous_response_id")
		default:
			return nil, nil, unsupportedf(param+".type", "%q is not supported: only message, function_call, function_call_output and reasoning items", it.Type)
		}
		leading = leading && (it.Type == "" || it.Type == "message") && (it.Role == "system" || it.Role == "developer")
	}
	return system, out, nil
}

// responsesTextOf reads content that may hold only text: a string, or
// input_text / output_text / refusal parts, joined.
func responsesTextOf(param string, c textOr[responsesPart]) (string, error) {
	switch {
	case !c.set:
		return "", nil
	case c.bad:
		return "", invalidf(param, "want a string or a list of content parts")
	case c.isText:
		return c.text, nil
	}
	var b []byte
	for i, p := range c.list {
		switch p.Type {
		case "input_text", "output_text":
			b = append(b, p.Text...)
		case "refusal":
			b = append(b, p.Refusal...)
		default:
			return "", unsupportedf(fmt.Sprintf("%s[%d].type", param, i), "%q is not supported here: only text", p.Type)
		}
	}
	return string(b), nil
}

// responsesUserParts reads user content (and a function call's output): a
// string, or text, image and file parts.
func responsesUserParts(param string, c textOr[responsesPart]) ([]sdk.Part, error) {
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
		switch p.Type {
		case "input_text", "output_text":
			out = append(out, sdk.Text{Text: p.Text})
		case "input_image":
			if p.FileID != "" {
				return nil, unsupportedf(pp+".file_id", "file ids are not supported: axon has no file store; send image_url")
			}
			img, err := openaiImage(pp+".image_url", p.ImageURL)
			if err != nil {
				return nil, err
			}
			out = append(out, img)
		case "input_file":
			doc, err := responsesDocument(pp, p)
			if err != nil {
				return nil, err
			}
			out = append(out, doc)
		default:
			return nil, unsupportedf(pp+".type", "%q is not supported: only input_text, input_image and input_file", p.Type)
		}
	}
	return out, nil
}

// responsesDocument reads an input_file part: a PDF inline (file_data) or
// by URL (file_url).
func responsesDocument(param string, p responsesPart) (sdk.Document, error) {
	switch {
	case p.FileID != "":
		return sdk.Document{}, unsupportedf(param+".file_id", "file ids are not supported: axon has no file store; send file_data or file_url")
	case p.FileURL != "":
		if _, err := remoteImage(param+".file_url", p.FileURL); err != nil {
			return sdk.Document{}, err
		}
		return sdk.Document{MediaType: "application/pdf", URL: p.FileURL, Title: p.Filename}, nil
	}
	return openaiDocument(param, &openaiFile{FileData: p.FileData, Filename: p.Filename})
}

// responsesTools reads function tools; a built-in tool (web_search,
// file_search, code_interpreter, ...) is refused by name: no provider
// behind axon runs them for a client.
func responsesTools(tools []responsesTool) ([]sdk.ToolSpec, error) {
	var out []sdk.ToolSpec
	for i, t := range tools {
		param := fmt.Sprintf("tools[%d]", i)
		if t.Type != "function" {
			if t.Type == "" {
				return nil, missing(param + ".type")
			}
			return nil, unsupportedf(param+".type", "built-in tool %q is not supported: axon serves function tools only (the client runs them)", t.Type)
		}
		if t.Name == "" {
			return nil, missing(param + ".name")
		}
		s, err := schema(param+".parameters", t.Parameters)
		if err != nil {
			return nil, err
		}
		out = append(out, sdk.ToolSpec{Name: t.Name, Description: t.Description, InputSchema: s})
	}
	return out, nil
}

// responsesToolChoice reads tool_choice: "auto", "none", "required" or
// {"type":"function","name":...}.
func responsesToolChoice(raw json.RawMessage) (sdk.ToolChoice, error) {
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
		case "required":
			return sdk.ToolChoice{Mode: sdk.ToolChoiceRequired}, nil
		}
		return sdk.ToolChoice{}, invalidf("tool_choice", "unknown mode %q", mode)
	}
	var named struct {
		Type string `json:"type"`
		Name string `json:"name"`
	}
	if err := decodeField("tool_choice", raw, &named, `"auto", "none", "required" or {"type":"function","name":...}`); err != nil {
		return sdk.ToolChoice{}, err
	}
	if named.Type != "function" {
		return sdk.ToolChoice{}, unsupportedf("tool_choice.type", "%q is not supported: only function", named.Type)
	}
	if named.Name == "" {
		return sdk.ToolChoice{}, missing("tool_choice.name")
	}
	return sdk.ToolChoice{Mode: sdk.ToolChoiceTool, Name: named.Name}, nil
}

// responsesOutput reads text.format: text (nil), json_object, or
// json_schema with its name, schema and strict flag beside its type.
func responsesOutput(t *responsesText) (*sdk.Output, error) {
	f := t.Format
	if f == nil {
		return nil, nil
	}
	switch f.Type {
	case "text":
		return nil, nil
	case "json_object":
		return &sdk.Output{Kind: sdk.OutputJSON}, nil
	case "json_schema":
		s, err := outputSchema("text.format.schema", f.Schema)
		if err != nil {
			return nil, err
		}
		return &sdk.Output{Kind: sdk.OutputJSONSchema, Name: f.Name, Schema: s, Strict: f.Strict != nil && *f.Strict}, nil
	case "":
		return nil, missing("text.format.type")
	}
	return nil, invalidf("text.format.type", `unknown type %q: want "text", "json_object" or "json_schema"`, f.Type)
}

// responsesShape is what the decoder reads inside the fields it
// translates; any other member is listed as ignored (an image's detail, a
// tool's strict — no wire format behind axon promises arguments that match
// a tool's schema —, a reasoning item's encrypted_content, ...). An item's id
// and status, echoed from an earlier response, are read and left alone.
var responsesShape = compile("", keys{
	"input[]": {
		"type": nil, "role": nil, "id": nil, "status": nil, "call_id": nil, "name": nil,
		"arguments": nil, "content[]": responsesPartKeys, "output[]": responsesPartKeys,
		"summary[]": {"type": nil, "text": nil},
	},
	"tools[]":     {"type": nil, "name": nil, "description": nil, "parameters": nil},
	"tool_choice": {"type": nil, "name": nil},
	"text":        {"format": {"type": nil, "name": nil, "schema": nil, "strict": nil}},
	"reasoning":   {"effort": nil},
})

var responsesPartKeys = keys{
	"type": nil, "text": nil, "refusal": nil, "image_url": nil, "file_data": nil,
	"file_url": nil, "file_id": nil, "filename": nil, "annotations": nil, "logprobs": nil,
}

// responsesFields sorts every top-level field of a Responses request:
// translated by decodeResponses, refused here, or listed as ignored.
func responsesFields(body []byte) (ignoredList, error) {
	var l ignoredList
	err := members(body, func(key, v []byte) error {
		switch string(key) {
		case "model", "input", "instructions", "tools", "tool_choice", "parallel_tool_calls",
			"max_output_tokens", "temperature", "top_p", "store", "stream", "previous_response_id":
			// translated by decode; what no decoder reads inside is listed
			ignoreNested(&l, v, responsesShape.members[string(key)])
		case "metadata":
			// Kept with the response and echoed in it; task is the task hint.
		case "text", "reasoning":
			ignoreNested(&l, v, responsesShape.members[string(key)])
		case "background":
			if !unset(v) {
				return unsupportedf("background", "background responses are not supported: send the request and wait, or stream it")
			}
		case "conversation":
			if !unset(v) {
				return unsupportedf("conversation", "conversations are not supported: continue with previous_response_id")
			}
		case "prompt":
			if !unset(v) {
				return unsupportedf("prompt", "prompt templates are not supported: send instructions and input")
			}
		case "truncation":
			// "disabled" is what axon does: an overflowing prompt fails.
			if !unset(v) && string(bytes.TrimSpace(v)) != `"disabled"` {
				l.add("", key)
			}
		case "top_logprobs":
			if !unset(v) {
				return unsupportedf("top_logprobs", "log probabilities are not supported: no provider behind axon is asked for them")
			}
		default:
			// Cost, latency and tracking hints (service_tier, user,
			// prompt_cache_key, safety_identifier, truncation "auto", include,
			// max_tool_calls, stream_options), and unknown fields.
			if !unset(v) {
				l.add("", key)
			}
		}
		return nil
	})
	return l, err
}
