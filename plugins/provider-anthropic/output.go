package main

import (
	"bytes"
	"encoding/json"

	"github.com/axonhq/axon/sdk"
)

// jsonObjectInstruction asks for any JSON object (sdk.OutputJSON). The
// Messages API has no "any object" form: output_config refuses an object
// schema unless additionalProperties is false, which leaves only {}. So
// the request says so in its system prompt instead, a hint the API cannot
// guarantee (the host validates the answer).
const jsonObjectInstruction = "Respond with a single JSON object and nothing else."

// outputConfig renders structured output. A JSON Schema becomes
// output_config.format, which the API enforces whether or not the client
// asked for strict; the schema's name has no place on the wire. nil (and
// no error) for sdk.OutputJSON, which buildRequest renders as an
// instruction.
func outputConfig(o *sdk.Output) (*wireOutput, error) {
	switch o.Kind {
	case sdk.OutputJSON:
		return nil, nil
	case sdk.OutputJSONSchema:
		s := bytes.TrimSpace(o.Schema)
		if len(s) == 0 || s[0] != '{' || !json.Valid(s) {
			return nil, sdk.Permanentf("structured output: the schema must be a JSON object")
		}
		return &wireOutput{Format: wireFormat{Type: "json_schema", Schema: json.RawMessage(s)}}, nil
	}
	return nil, sdk.Permanentf("structured output: unknown kind %q", o.Kind)
}
