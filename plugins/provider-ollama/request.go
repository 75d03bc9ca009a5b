package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/axonhq/axon/sdk"
)

// wireRequest is the body of POST /api/chat.
type wireRequest struct {
	Model     string                     `json:"model"`
	Messages  []wireMessage              `json:"messages"`
	Tools     []wireTool                 `json:"tools,omitempty"`
	Format    json.RawMessage            `json:"format,omitempty"` // "json" or a JSON Schema object
	Stream    bool                       `json:"stream"`
	Think     json.RawMessage            `json:"think,omitempty"`
	KeepAlive json.RawMessage            `json:"keep_alive,omitempty"`
	Options   map[string]json.RawMessage `json:"options,omitempty"`
}

// wireMessage is a request message, and the message of a response line.
type wireMessage struct {
	Role      string         `json:"role"`
	Content   string         `json:"content"`
	Thinking  string         `json:"thinking,omitempty"`
	Images    []string       `json:"images,omitempty"` // base64, no data: prefix
	ToolCalls []wireToolCall `json:"tool_calls,omitempty"`
	ToolName  string         `json:"tool_name,omitempty"` // role tool: the tool that answered
}

type wireToolCall struct {
	ID       string       `json:"id,omitempty"` // sent by newer servers only; never by this plugin
	Function wireFunction `json:"function"`
}

type wireFunction struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"` // a JSON object, not a string
}

type wireTool struct {
	Type     string           `json:"type"` // function
	Function wireToolFunction `json:"function"`
}

type wireToolFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

// buildRequest translates a canonical request into the /api/chat body.
// Every Generate streams upstream, so Stream is always true.
func buildRequest(req *sdk.Request, s settings) (*wireRequest, error) {
	opts, err := parseRequestOptions(req.Options)
	if err != nil {
		return nil, err
	}
	w := &wireRequest{Model: req.Model, Stream: true, Think: s.think, KeepAlive: s.keepAlive}
	if w.Model == "" {
		w.Model = s.model
	}
	if w.Model == "" {
		return nil, sdk.Permanentf("no model: set model in the provider block or in the request")
	}
	if opts.think != nil {
		w.Think = opts.think
	}
	if opts.keepAlive != nil {
		w.KeepAlive = opts.keepAlive
	}
	if w.Options, err = runtimeOptions(req, s, opts); err != nil {
		return nil, err
	}

	if s := sdk.SystemText(req.System); s != "" {
		w.Messages = append(w.Messages, wireMessage{Role: "system", Content: s})
	}
	names := map[string]string{} // tool call id → name, for results that name no tool
	for i, m := range req.Messages {
		msgs, err := messages(m, names)
		var unsupported unsupportedError
		if errors.As(err, &unsupported) { // also inside a tool result
			return nil, sdk.Unsupportedf("message %d: %v", i, err)
		}
		if err != nil {
			return nil, sdk.Permanentf("message %d: %v", i, err)
		}
		w.Messages = append(w.Messages, msgs...)
	}
	// ToolChoice.Sequential renders nothing: /api/chat has no switch for
	// one call per turn, and a model may return several.
	if w.Tools, err = tools(req.Tools, req.ToolChoice); err != nil {
		return nil, err
	}
	if req.Output != nil {
		if w.Format, err = format(req.Output); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// runtimeOptions merges, lowest first: the options attribute, the request's
// options option, then the request fields and max_tokens attribute that
// have a runtime option of their own.
func runtimeOptions(req *sdk.Request, s settings, o requestOptions) (map[string]json.RawMessage, error) {
	out := make(map[string]json.RawMessage, len(s.options)+len(o.options)+3)
	for k, v := range s.options {
		out[k] = v
	}
	for k, v := range o.options {
		out[k] = v
	}
	if n := req.MaxTokens; n > 0 {
		out["num_predict"] = json.RawMessage(fmt.Sprint(n))
	} else if s.maxTokens > 0 {
		out["num_predict"] = json.RawMessage(fmt.Sprint(s.maxTokens))
	}
	if req.Temperature != nil {
		b, err := json.Marshal(*req.Temperature)
		if err != nil {
			return nil, sdk.Permanentf("temperature: %v", err)
		}
		out["temperature"] = b
	}
	if len(req.StopSequences) > 0 {
		b, _ := json.Marshal(req.StopSequences)
		out["stop"] = b
	}
	// The front doors' sampling knobs, under the runtime options' own
	// names: they win over the options attribute, as the request's fields do.
	for _, k := range []string{"top_p", "top_k", "seed"} {
		if v, ok := req.Options[k]; ok {
			if !json.Valid(v) || len(v) == 0 || (v[0] != '-' && (v[0] < '0' || v[0] > '9')) {
				return nil, sdk.Permanentf("option %s: want a number", k)
			}
			out[k] = v
		}
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

// messages translates one canonical message. It is one wire message, except
// that every tool result is a tool message of its own.
func messages(m sdk.Message, names map[string]string) ([]wireMessage, error) {
	var role string
	switch m.Role {
	case sdk.RoleSystem:
		if t := sdk.TextOf(m.Parts); t != "" {
			return []wireMessage{{Role: "system", Content: t}}, nil
		}
		return nil, nil
	case sdk.RoleUser, sdk.RoleTool:
		role = "user"
	case sdk.RoleAssistant:
		role = "assistant"
	default:
		return nil, fmt.Errorf("unknown role %q", m.Role)
	}
	var results []wireMessage
	msg := wireMessage{Role: role}
	var text, thinking strings.Builder
	for _, p := range m.Parts {
		switch p := p.(type) {
		case sdk.Text:
			text.WriteString(p.Text)
		case sdk.Image:
			if role != "user" {
				return nil, errors.New("an image may only appear in a user message")
			}
			img, err := image(p)
			if err != nil {
				return nil, err
			}
			msg.Images = append(msg.Images, img)
		case sdk.Document:
			return nil, errDocument(p)
		case sdk.Reasoning:
			if role != "assistant" {
				return nil, errors.New("reasoning may only appear in an assistant message")
			}
			// Ollama takes earlier reasoning back as text; signatures and
			// redacted blocks (Anthropic) have no place on this wire.
			thinking.WriteString(p.Text)
		case sdk.ToolCall:
			if role != "assistant" {
				return nil, errors.New("a tool call may only appear in an assistant message")
			}
			args, err := sdk.ToolInput(p.Input)
			if err != nil {
				return nil, fmt.Errorf("tool call %q: %w", p.ID, err)
			}
			names[p.ID] = p.Name
			msg.ToolCalls = append(msg.ToolCalls, wireToolCall{Function: wireFunction{Name: p.Name, Arguments: args}})
		case sdk.ToolResult:
			if role != "user" {
				return nil, errors.New("a tool result may only appear in a user or tool message")
			}
			r, err := toolResult(p, names)
			if err != nil {
				return nil, err
			}
			results = append(results, r)
		default:
			return nil, fmt.Errorf("unsupported part %T", p)
		}
	}
	msg.Content, msg.Thinking = text.String(), thinking.String()
	// Results answer the previous assistant turn, so they go first; the
	// rest of the message follows only if it holds anything.
	if msg.Content != "" || len(msg.Images) > 0 || len(msg.ToolCalls) > 0 || msg.Thinking != "" || len(results) == 0 {
		results = append(results, msg)
	}
	return results, nil
}

func toolResult(p sdk.ToolResult, names map[string]string) (wireMessage, error) {
	name := p.Name
	if name == "" {
		name = names[p.CallID]
	}
	// The wire has no error flag: a failed result says so in its text, as
	// the model would read it from any tool.
	var text strings.Builder
	if p.IsError {
		text.WriteString("Error: ")
	}
	msg := wireMessage{Role: "tool", ToolName: name}
	for _, part := range p.Content {
		switch part := part.(type) {
		case sdk.Text:
			text.WriteString(part.Text)
		case sdk.Image:
			img, err := image(part)
			if err != nil {
				return wireMessage{}, err
			}
			msg.Images = append(msg.Images, img)
		case sdk.Document:
			return wireMessage{}, fmt.Errorf("tool result %q: %w", p.CallID, errDocument(part))
		default:
			return wireMessage{}, fmt.Errorf("tool result %q: unsupported part %T", p.CallID, part)
		}
	}
	msg.Content = text.String()
	return msg, nil
}

// errDocument refuses a document: /api/chat takes text and images only,
// and turning a PDF into either is not this plugin's job.
func errDocument(d sdk.Document) error {
	what := d.MediaType
	if what == "" {
		what = "no media type"
	}
	if d.Title != "" {
		what += `, "` + d.Title + `"`
	}
	return unsupportedError(fmt.Sprintf("a document (%s) cannot be sent: Ollama's /api/chat takes no document input", what))
}

// unsupportedError is a part /api/chat has no place for.
type unsupportedError string

func (e unsupportedError) Error() string { return string(e) }

// image encodes an inline image. Ollama reads raw base64 and fetches
// nothing, so an image given only by URL cannot be sent.
func image(p sdk.Image) (string, error) {
	if len(p.Data) == 0 {
		if p.URL != "" {
			return "", errors.New("an image given only by URL cannot be sent: Ollama takes inline image data")
		}
		return "", errors.New("an image needs data")
	}
	return base64.StdEncoding.EncodeToString(p.Data), nil
}

// tools translates the tool specs under the tool choice. The API has no
// tool_choice: none sends no tools, a named tool sends only that one, and
// required sends them all (Ollama cannot force a call; the model decides).
func tools(specs []sdk.ToolSpec, tc sdk.ToolChoice) ([]wireTool, error) {
	switch tc.Mode {
	case sdk.ToolChoiceAuto, sdk.ToolChoiceRequired:
	case sdk.ToolChoiceNone:
		return nil, nil
	case sdk.ToolChoiceTool:
		if tc.Name == "" {
			return nil, sdk.Permanentf("tool choice %q needs a tool name", tc.Mode)
		}
	default:
		return nil, sdk.Permanentf("unknown tool choice %q", tc.Mode)
	}
	if tc.Mode != sdk.ToolChoiceAuto && len(specs) == 0 {
		return nil, sdk.Permanentf("tool choice %q needs at least one tool", tc.Mode)
	}
	var out []wireTool
	for _, t := range specs {
		if tc.Mode == sdk.ToolChoiceTool && t.Name != tc.Name {
			continue
		}
		params := t.InputSchema
		if len(bytes.TrimSpace(params)) == 0 {
			params = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		if !json.Valid(params) {
			return nil, sdk.Permanentf("tool %q: input schema is not valid JSON", t.Name)
		}
		out = append(out, wireTool{Type: "function", Function: wireToolFunction{Name: t.Name, Description: t.Description, Parameters: params}})
	}
	if tc.Mode == sdk.ToolChoiceTool && len(out) == 0 {
		return nil, sdk.Permanentf("tool choice names %q, which is not among the request's tools", tc.Name)
	}
	return out, nil
}
