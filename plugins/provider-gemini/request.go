package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/axonhq/axon/sdk"
)

// Gemini's two content roles: everything the user side sends (including
// tool results) is "user", the assistant is "model".
const (
	roleUser  = "user"
	roleModel = "model"
)

// buildRequest translates a canonical request to a generateContent body.
// It is pure: the same request and config always give the same body.
func buildRequest(req *sdk.Request, cfg config) (*wireRequest, error) {
	opts, err := parseOptions(req.Options)
	if err != nil {
		return nil, err
	}
	w := &wireRequest{Contents: []wireContent{}}

	system := []string{}
	if s := sdk.SystemText(req.System); strings.TrimSpace(s) != "" {
		system = append(system, s)
	}
	names := callNames(req.Messages)
	for i, m := range req.Messages {
		var c wireContent
		switch m.Role {
		case sdk.RoleSystem:
			if t := sdk.TextOf(m.Parts); strings.TrimSpace(t) != "" {
				system = append(system, t)
			}
			continue
		case sdk.RoleUser, sdk.RoleTool:
			c, err = userContent(m.Parts, names)
		case sdk.RoleAssistant:
			c, err = modelContent(m.Parts)
		default:
			return nil, sdk.Permanentf("gemini: message %d: unknown role %q", i, m.Role)
		}
		if err != nil {
			return nil, sdk.Permanentf("gemini: message %d: %v", i, err)
		}
		w.Contents = appendContent(w.Contents, c)
	}
	if len(system) > 0 {
		si := &wireContent{}
		for _, s := range system {
			si.Parts = append(si.Parts, textPart(s))
		}
		w.SystemInstruction = si
	}

	if w.Tools, err = tools(req.Tools); err != nil {
		return nil, err
	}
	// ToolChoice.Sequential renders nothing: functionCallingConfig has no
	// switch for one call per turn, and a model may return several.
	if w.ToolConfig, err = toolConfig(req.ToolChoice, req.Tools); err != nil {
		return nil, err
	}
	if w.GenerationConfig, err = generationConfig(req, cfg, opts); err != nil {
		return nil, err
	}
	return w, nil
}

// appendContent adds c, merging it into the previous content of the same
// role (Gemini wants turns to alternate, and the results of parallel calls
// in one turn). Empty contents are dropped.
func appendContent(list []wireContent, c wireContent) []wireContent {
	if len(c.Parts) == 0 {
		return list
	}
	if n := len(list); n > 0 && list[n-1].Role == c.Role {
		list[n-1].Parts = append(list[n-1].Parts, c.Parts...)
		if c.Role == roleUser {
			list[n-1].Parts = responsesFirst(list[n-1].Parts)
		}
		return list
	}
	return append(list, c)
}

// responsesFirst moves functionResponse parts ahead of the rest of a user
// turn, keeping each group's order: the responses answer the model turn
// just before.
func responsesFirst(parts []wirePart) []wirePart {
	out := make([]wirePart, 0, len(parts))
	for _, p := range parts {
		if p.FunctionResponse != nil {
			out = append(out, p)
		}
	}
	for _, p := range parts {
		if p.FunctionResponse == nil {
			out = append(out, p)
		}
	}
	return out
}

func textPart(s string) wirePart { return wirePart{Text: &s} }

// userContent translates a user or tool message. Tool results become
// functionResponse parts; images and documents in a result follow as
// parts of their own.
func userContent(parts []sdk.Part, names map[string]string) (wireContent, error) {
	c := wireContent{Role: roleUser}
	for _, p := range parts {
		switch v := p.(type) {
		case sdk.Text:
			if v.Text != "" {
				c.Parts = append(c.Parts, textPart(v.Text))
			}
		case sdk.Image:
			ip, err := imagePart(v)
			if err != nil {
				return c, err
			}
			c.Parts = append(c.Parts, ip)
		case sdk.Document:
			dp, err := documentParts(v)
			if err != nil {
				return c, err
			}
			c.Parts = append(c.Parts, dp...)
		case sdk.ToolResult:
			rp, extra, err := resultParts(v, names)
			if err != nil {
				return c, err
			}
			c.Parts = append(c.Parts, rp)
			c.Parts = append(c.Parts, extra...)
		case sdk.Reasoning:
			// Reasoning on a user turn has no place on this wire.
		case sdk.ToolCall:
			return c, fmt.Errorf("a tool call on a %s turn", roleUser)
		}
	}
	return wireContent{Role: roleUser, Parts: responsesFirst(c.Parts)}, nil
}

func imagePart(img sdk.Image) (wirePart, error) {
	switch {
	case len(img.Data) > 0:
		if img.MediaType == "" {
			return wirePart{}, fmt.Errorf("an inline image without a media type")
		}
		return wirePart{InlineData: &wireBlob{MimeType: img.MediaType, Data: img.Data}}, nil
	case img.URL != "":
		return wirePart{FileData: &wireFileData{MimeType: img.MediaType, FileURI: img.URL}}, nil
	}
	return wirePart{}, fmt.Errorf("an image with neither data nor URL")
}

// resultParts translates one tool result. The response object follows
// Google's convention: {"output": text}, or {"error": text} for a failure
// the model should see. Gemini needs the function's name: the result's
// Name, else the name of the call with the same id earlier in the
// conversation.
func resultParts(r sdk.ToolResult, names map[string]string) (wirePart, []wirePart, error) {
	name := r.Name
	if name == "" {
		name = names[r.CallID]
	}
	if name == "" {
		return wirePart{}, nil, fmt.Errorf("tool result %q has no tool name and answers no call in the conversation", r.CallID)
	}
	var text strings.Builder
	var media []wirePart
	for _, p := range r.Content {
		switch v := p.(type) {
		case sdk.Text:
			text.WriteString(v.Text)
		case sdk.Image:
			ip, err := imagePart(v)
			if err != nil {
				return wirePart{}, nil, err
			}
			media = append(media, ip)
		case sdk.Document:
			dp, err := documentParts(v)
			if err != nil {
				return wirePart{}, nil, fmt.Errorf("tool result %q: %w", r.CallID, err)
			}
			media = append(media, dp...)
		}
	}
	key := "output"
	if r.IsError {
		key = "error"
	}
	return wirePart{FunctionResponse: &wireFunctionResponse{
		ID:       r.CallID,
		Name:     name,
		Response: map[string]any{key: text.String()},
	}}, media, nil
}

// callNames maps each tool call id in the conversation to its tool name.
func callNames(msgs []sdk.Message) map[string]string {
	names := map[string]string{}
	for _, m := range msgs {
		for _, p := range m.Parts {
			if c, ok := p.(sdk.ToolCall); ok && c.ID != "" {
				names[c.ID] = c.Name
			}
		}
	}
	return names
}

// modelContent translates an assistant message. Reasoning text is not sent
// back (Gemini's thoughts are summaries, not model input); reasoning
// signatures are, by attachSignatures.
func modelContent(parts []sdk.Part) (wireContent, error) {
	c := wireContent{Role: roleModel}
	var sigs []pendingSignature
	for _, p := range parts {
		switch v := p.(type) {
		case sdk.Text:
			if v.Text != "" {
				c.Parts = append(c.Parts, textPart(v.Text))
			}
		case sdk.Reasoning:
			if v.Signature != "" {
				sigs = append(sigs, pendingSignature{at: len(c.Parts), value: v.Signature})
			}
		case sdk.ToolCall:
			args, err := callArgs(v)
			if err != nil {
				return c, err
			}
			c.Parts = append(c.Parts, wirePart{FunctionCall: &wireFunctionCall{ID: v.ID, Name: v.Name, Args: args}})
		case sdk.Image:
			ip, err := imagePart(v)
			if err != nil {
				return c, err
			}
			c.Parts = append(c.Parts, ip)
		case sdk.Document:
			return c, fmt.Errorf("a document on a %s turn (documents come from the user)", roleModel)
		case sdk.ToolResult:
			return c, fmt.Errorf("a tool result on a %s turn", roleModel)
		}
	}
	c.Parts = attachSignatures(c.Parts, sigs)
	return c, nil
}

// callArgs checks a call's input: Gemini wants a JSON object; empty input
// is no arguments.
func callArgs(c sdk.ToolCall) (json.RawMessage, error) {
	in := bytes.TrimSpace(c.Input)
	if len(in) == 0 || bytes.Equal(in, []byte("null")) {
		return json.RawMessage(`{}`), nil
	}
	if in[0] != '{' || !json.Valid(in) {
		return nil, fmt.Errorf("tool call %q: input is not a JSON object", c.Name)
	}
	return in, nil
}

// pendingSignature is a reasoning signature seen before the part at index
// at of the translated message.
type pendingSignature struct {
	at    int
	value string
}

// attachSignatures puts each thought signature back on a part, as Gemini
// requires ("at the exact part it arrived in"). The canonical message has no
// field for that, so the convention is positional and survives reordering
// of reasoning ahead of text and calls:
//   - in a message with function calls, a signature goes to the first
//     unsigned call after it (else the first unsigned call at all): Gemini
//     signs the first call of each step;
//   - otherwise to the first unsigned text part after it, else the last one
//     before it (Gemini signs the last part of a reply without calls);
//   - with no part to carry it, to an empty text part of its own.
func attachSignatures(parts []wirePart, sigs []pendingSignature) []wirePart {
	isCall := func(p wirePart) bool { return p.FunctionCall != nil }
	isText := func(p wirePart) bool { return p.Text != nil }
	hasCalls := false
	for _, p := range parts {
		hasCalls = hasCalls || isCall(p)
	}
	free := func(i int, want func(wirePart) bool) bool {
		return want(parts[i]) && parts[i].ThoughtSignature == ""
	}
	for _, s := range sigs {
		want := isText
		if hasCalls {
			want = isCall
		}
		target := -1
		for i := s.at; i < len(parts) && target < 0; i++ {
			if free(i, want) {
				target = i
			}
		}
		for i := min(s.at, len(parts)) - 1; i >= 0 && target < 0; i-- {
			if free(i, want) {
				target = i
			}
		}
		if target < 0 {
			p := textPart("")
			p.ThoughtSignature = s.value
			parts = append(parts, p)
			continue
		}
		parts[target].ThoughtSignature = s.value
	}
	return parts
}

// tools declares the request's tools as one functionDeclarations list,
// each schema in parametersJsonSchema: the API field that takes JSON Schema
// as is, unlike "parameters", which takes only an OpenAPI subset.
func tools(specs []sdk.ToolSpec) ([]wireTool, error) {
	if len(specs) == 0 {
		return nil, nil
	}
	decls := make([]wireFunctionDecl, 0, len(specs))
	for _, s := range specs {
		if s.Name == "" {
			return nil, sdk.Permanentf("gemini: a tool without a name")
		}
		params, err := parameters(s)
		if err != nil {
			return nil, err
		}
		decls = append(decls, wireFunctionDecl{Name: s.Name, Description: s.Description, Parameters: params})
	}
	return []wireTool{{FunctionDeclarations: decls}}, nil
}

// parameters prepares a tool's JSON Schema (jsonSchema). It must be an
// object schema; an empty schema declares a function without parameters.
func parameters(s sdk.ToolSpec) (json.RawMessage, error) {
	raw := bytes.TrimSpace(s.InputSchema)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, nil
	}
	b, err := jsonSchema(raw)
	if err != nil {
		return nil, sdk.Permanentf("gemini: tool %q: input schema is not a JSON object", s.Name)
	}
	return b, nil
}

// toolConfig maps the tool choice: auto is the API default and is not
// sent, nor is any choice without tools.
func toolConfig(tc sdk.ToolChoice, specs []sdk.ToolSpec) (*wireToolConfig, error) {
	if len(specs) == 0 {
		return nil, nil
	}
	var f wireFunctionCallingConfig
	switch tc.Mode {
	case sdk.ToolChoiceAuto:
		return nil, nil
	case sdk.ToolChoiceNone:
		f.Mode = "NONE"
	case sdk.ToolChoiceRequired:
		f.Mode = "ANY"
	case sdk.ToolChoiceTool:
		found := false
		for _, s := range specs {
			found = found || s.Name == tc.Name
		}
		if !found {
			return nil, sdk.Permanentf("gemini: tool choice names %q, which is not among the request's tools", tc.Name)
		}
		f.Mode, f.AllowedFunctionNames = "ANY", []string{tc.Name}
	default:
		return nil, sdk.Permanentf("gemini: unknown tool choice %q", tc.Mode)
	}
	return &wireToolConfig{FunctionCallingConfig: f}, nil
}

// maxStopSequences is the most stopSequences the Gemini API takes
// (GenerationConfig reference: "up to 5"); more are refused here rather
// than cut, before anything is sent.
const maxStopSequences = 5

// generationConfig holds the limits, sampling knobs and structured
// output; nil when there is nothing to send.
func generationConfig(req *sdk.Request, cfg config, opts options) (*wireGenConfig, error) {
	if n := len(req.StopSequences); n > maxStopSequences {
		return nil, sdk.Unsupportedf("gemini: %d stop sequences: the Gemini API takes at most %d", n, maxStopSequences)
	}
	g := &wireGenConfig{Temperature: req.Temperature, StopSequences: req.StopSequences, TopP: opts.TopP, TopK: opts.TopK, Seed: opts.Seed}
	if n := req.MaxTokens; n > 0 {
		g.MaxOutputTokens = &n
	} else if cfg.MaxTokens > 0 {
		n := cfg.MaxTokens
		g.MaxOutputTokens = &n
	}
	budget, include := cfg.ThinkingBudget, cfg.IncludeThoughts
	if opts.ThinkingBudget != nil {
		budget = opts.ThinkingBudget
	}
	if opts.IncludeThoughts != nil {
		include = *opts.IncludeThoughts
	}
	if budget != nil || include {
		g.ThinkingConfig = &wireThinkingConfig{IncludeThoughts: include, ThinkingBudget: budget}
	}
	if req.Output != nil {
		if err := output(g, req.Output); err != nil {
			return nil, err
		}
	}
	if g.MaxOutputTokens == nil && g.Temperature == nil && len(g.StopSequences) == 0 && g.ThinkingConfig == nil && g.ResponseMimeType == "" &&
		g.TopP == nil && g.TopK == nil && g.Seed == nil {
		return nil, nil
	}
	return g, nil
}
