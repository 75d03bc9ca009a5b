package main

import (
	"bytes"
	"encoding/json"
	"regexp"

	"github.com/axonhq/axon/sdk"
)

// defaultSchemaName names a json_schema the request left unnamed: both
// OpenAI wires require a name (the Anthropic front door's output_config has
// none to give).
const defaultSchemaName = "response"

// schemaName is what OpenAI accepts as a json_schema name.
var schemaName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// chatFormat is a Chat Completions response_format.
type chatFormat struct {
	Type       string          `json:"type"` // json_object | json_schema
	JSONSchema *chatJSONSchema `json:"json_schema,omitempty"`
}

type chatJSONSchema struct {
	Name   string          `json:"name"`
	Schema json.RawMessage `json:"schema"`
	Strict bool            `json:"strict,omitempty"`
}

// responsesFormat is a Responses API text.format, whose json_schema fields
// sit beside its type.
type responsesFormat struct {
	Type   string          `json:"type"`
	Name   string          `json:"name,omitempty"`
	Schema json.RawMessage `json:"schema,omitempty"`
	Strict bool            `json:"strict,omitempty"`
}

// outputSchema checks o and returns its schema (nil for sdk.OutputJSON)
// and the name to send with it.
func outputSchema(o *sdk.Output) (json.RawMessage, string, error) {
	switch o.Kind {
	case sdk.OutputJSON:
		return nil, "", nil
	case sdk.OutputJSONSchema:
		s := bytes.TrimSpace(o.Schema)
		if len(s) == 0 || s[0] != '{' || !json.Valid(s) {
			return nil, "", sdk.Permanentf("structured output: the schema must be a JSON object")
		}
		name := o.Name
		if name == "" {
			name = defaultSchemaName
		}
		if !schemaName.MatchString(name) {
			return nil, "", sdk.Permanentf("structured output: schema name %q: OpenAI takes 1 to 64 letters, digits, _ and -", name)
		}
		return json.RawMessage(s), name, nil
	}
	return nil, "", sdk.Permanentf("structured output: unknown kind %q", o.Kind)
}

// chatResponseFormat renders o as response_format: json_object, or
// json_schema with its name, schema and strict flag (strict is what makes
// the API guarantee the schema).
func chatResponseFormat(o *sdk.Output) (json.RawMessage, error) {
	schema, name, err := outputSchema(o)
	if err != nil {
		return nil, err
	}
	f := chatFormat{Type: "json_object"}
	if schema != nil {
		f = chatFormat{Type: "json_schema", JSONSchema: &chatJSONSchema{Name: name, Schema: schema, Strict: o.Strict}}
	}
	return json.Marshal(f)
}

// responsesTextFormat renders o as the Responses API's text.format.
func responsesTextFormat(o *sdk.Output) (json.RawMessage, error) {
	schema, name, err := outputSchema(o)
	if err != nil {
		return nil, err
	}
	f := responsesFormat{Type: "json_object"}
	if schema != nil {
		f = responsesFormat{Type: "json_schema", Name: name, Schema: schema, Strict: o.Strict}
	}
	return json.Marshal(f)
}

// parallelToolCalls is what the request says of parallel tool calls: false
// when the canonical request asks for one call per turn, else the
// parallel_tool_calls option (nil: the server's default).
func parallelToolCalls(req *sdk.Request, opts options) *bool {
	if req.ToolChoice.Sequential {
		f := false
		return &f
	}
	return opts.ParallelToolCalls
}
