package main

import (
	"regexp"
	"strings"

	"github.com/axonhq/axon/sdk"
)

// renderPrompt turns a request into the one text a client takes. A single
// user message of text, with no system prompt, is its text alone. Anything
// else is laid out as blocks separated by a blank line, each a role label
// on its own line followed by the turn's text:
//
//	System:
//	<req.System, then each system message, a block each>
//
//	User:
//	<text>
//
//	Assistant:
//	<text>
//	[tool call NAME id=ID] {"input":"json"}
//
//	Tool result NAME id=ID:
//	<text>
//
// A failed tool result is labelled "Tool error NAME id=ID:". A message's
// text parts are joined as they are; its tool calls follow, one line each;
// its tool results become blocks of their own, in order. Reasoning is
// dropped (it belongs to the model that wrote it). Images and PDF
// documents are refused: a client takes a text prompt; a plain-text
// document is its text, after its title and context. Tool calls are
// refused when the request requires one: the client answers in text only.
// A request for JSON (Request.Output) ends the prompt with an instruction
// to answer with it, and the schema: a client cannot guarantee it (the
// plugin declares no Info.Output), and the host checks the answer.
func renderPrompt(req *sdk.Request) (string, error) {
	prompt, err := renderTurns(req)
	if err != nil || req.Output == nil {
		return prompt, err
	}
	instruction, err := outputInstruction(req.Output)
	if err != nil {
		return "", err
	}
	return prompt + "\n\n" + instruction, nil
}

// outputInstruction asks for the answer form o names.
func outputInstruction(o *sdk.Output) (string, error) {
	switch o.Kind {
	case sdk.OutputJSON:
		return "Respond with a single JSON object and nothing else.", nil
	case sdk.OutputJSONSchema:
		schema := strings.TrimSpace(string(o.Schema))
		if !strings.HasPrefix(schema, "{") {
			return "", sdk.Permanentf("cli: structured output: the schema must be a JSON object")
		}
		return "Respond with a single JSON object and nothing else, valid against this JSON Schema:\n" + schema, nil
	}
	return "", sdk.Permanentf("cli: structured output: unknown kind %q", o.Kind)
}

func renderTurns(req *sdk.Request) (string, error) {
	switch req.ToolChoice.Mode {
	case sdk.ToolChoiceRequired, sdk.ToolChoiceTool:
		return "", sdk.Unsupportedf("cli: the request requires a tool call; a command-line client answers in text only")
	}
	if len(req.System) == 0 && len(req.Messages) == 1 && req.Messages[0].Role == sdk.RoleUser {
		if text, ok := textOnly(req.Messages[0].Parts); ok {
			if text == "" {
				return "", sdk.Permanentf("cli: the request has an empty prompt")
			}
			return text, nil
		}
	}
	var blocks []string
	add := func(label, body string) {
		blocks = append(blocks, label+":\n"+body)
	}
	if s := sdk.SystemText(req.System); s != "" {
		add("System", s)
	}
	for _, m := range req.Messages {
		var text strings.Builder
		var results []string
		for _, p := range m.Parts {
			switch p := p.(type) {
			case sdk.Text:
				text.WriteString(p.Text)
			case sdk.Image:
				return "", imageError()
			case sdk.Document:
				body, err := documentText(p)
				if err != nil {
					return "", err
				}
				text.WriteString(body)
			case sdk.Reasoning:
			case sdk.ToolCall:
				if text.Len() > 0 && !strings.HasSuffix(text.String(), "\n") {
					text.WriteByte('\n')
				}
				input, err := sdk.ToolInput(p.Input)
				if err != nil {
					return "", sdk.Permanentf("cli: the input of tool call %s is not a JSON object", sdk.SafeID(p.ID))
				}
				text.WriteString("[tool call " + p.Name + " id=" + p.ID + "] " + string(input) + "\n")
			case sdk.ToolResult:
				body, ok := textOnly(p.Content)
				if !ok {
					return "", imageError()
				}
				label := "Tool result "
				if p.IsError {
					label = "Tool error "
				}
				results = append(results, label+p.Name+" id="+p.CallID+":\n"+body)
			}
		}
		if body := strings.TrimSuffix(text.String(), "\n"); body != "" || len(results) == 0 {
			add(roleLabel(m.Role), body)
		}
		blocks = append(blocks, results...)
	}
	if len(blocks) == 0 {
		return "", sdk.Permanentf("cli: the request has no messages")
	}
	return strings.Join(blocks, "\n\n"), nil
}

func roleLabel(r sdk.Role) string {
	switch r {
	case sdk.RoleSystem:
		return "System"
	case sdk.RoleAssistant:
		return "Assistant"
	case sdk.RoleTool:
		return "Tool"
	}
	return "User"
}

// textOnly joins the text of parts; ok is false when one is an image or a
// document (renderTurns lays documents out). Parts other than these carry
// nothing here.
func textOnly(parts []sdk.Part) (string, bool) {
	var b strings.Builder
	for _, p := range parts {
		switch p := p.(type) {
		case sdk.Text:
			b.WriteString(p.Text)
		case sdk.Image, sdk.Document:
			return "", false
		}
	}
	return b.String(), true
}

// documentText is a plain-text document as the prompt holds it: its title
// and context, each on a line, then its text. A PDF, or a document by URL,
// is refused: the client reads only the prompt.
func documentText(d sdk.Document) (string, error) {
	if d.MediaType != "text/plain" || len(d.Data) == 0 {
		return "", sdk.Unsupportedf("cli: a %s document is not supported: a command-line client takes a text prompt (plain-text documents only, inline)", d.MediaType)
	}
	var b strings.Builder
	for _, line := range []string{d.Title, d.Context} {
		if line != "" {
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	b.Write(d.Data)
	return b.String(), nil
}

func imageError() error {
	return sdk.Unsupportedf("cli: images are not supported: a command-line client takes a text prompt")
}

// modelRE is what a model name may look like: it lands in argv, and one
// that began with "-" could pass as a flag.
var modelRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:/@+-]*$`)

// buildArgv fills the placeholders of the configured command: every
// {prompt} (or, when no element holds one and the prompt goes as an
// argument, a last argument) and every {model}, in one pass, so neither
// is searched for in the other. A prompt that is a whole argument and
// starts with "-" gets a leading space, so the client cannot take it for a
// flag.
func (s *settings) buildArgv(prompt, model string) ([]string, error) {
	if model == "" {
		model = s.model
	}
	if s.needsModel {
		if model == "" {
			return nil, sdk.Permanentf("cli: command uses {model} and neither the request nor the block names one")
		}
		if !modelRE.MatchString(model) {
			return nil, sdk.Permanentf("cli: the model named is not a model name (letters, digits and ._:/@+-, not starting with -)")
		}
	}
	whole := prompt
	if strings.HasPrefix(whole, "-") {
		whole = " " + whole
	}
	r := strings.NewReplacer(placeholderModel, model, placeholderPrompt, prompt)
	argv := make([]string, len(s.argv), len(s.argv)+1)
	argv[0] = s.argv[0]
	for i, a := range s.argv[1:] {
		if a == placeholderPrompt {
			argv[i+1] = whole
			continue
		}
		argv[i+1] = r.Replace(a)
	}
	if !s.hasPrompt && s.promptVia == viaArg {
		argv = append(argv, whole)
	}
	for _, a := range argv {
		if len(a) > maxArg {
			return nil, sdk.Permanentf("cli: the prompt is %d bytes, beyond the %d an argument may hold; set prompt_via = \"stdin\" if the client reads it there", len(prompt), maxArg)
		}
		if strings.IndexByte(a, 0) >= 0 {
			return nil, sdk.Permanentf("cli: the prompt holds a NUL byte, which no argument can carry")
		}
	}
	return argv, nil
}
