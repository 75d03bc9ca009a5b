package main

import (
	"bytes"
	"encoding/json"

	"github.com/axonhq/axon/sdk"
)

// formatJSON is /api/chat's "any JSON" format.
var formatJSON = json.RawMessage(`"json"`)

// format renders structured output as /api/chat's format: "json" for any
// JSON object, or the JSON Schema object itself (Ollama's structured
// outputs), which the server turns into a grammar the sampler cannot leave,
// so a schema holds whether or not the client asked for strict. The
// schema's name has no place on the wire.
func format(o *sdk.Output) (json.RawMessage, error) {
	switch o.Kind {
	case sdk.OutputJSON:
		return formatJSON, nil
	case sdk.OutputJSONSchema:
		s := bytes.TrimSpace(o.Schema)
		if len(s) == 0 || s[0] != '{' || !json.Valid(s) {
			return nil, sdk.Permanentf("structured output%s: the schema must be a JSON object", schemaName(o.Name))
		}
		return json.RawMessage(s), nil
	}
	return nil, sdk.Permanentf("structured output: unknown kind %q", o.Kind)
}

// schemaName is the schema's name for an error message, or nothing.
func schemaName(name string) string {
	if name == "" {
		return ""
	}
	return " " + `"` + name + `"`
}
