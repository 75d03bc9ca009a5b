package chain

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/axonhq/axon/sdk"
)

// Engine findings of structured output (Request.Output).
const (
	// CodeNoStructuredOutput: a hop skipped because the request's schema is
	// strict and the hop cannot guarantee it (Hop.Output); also the code of
	// the failure when every hop was skipped so.
	CodeNoStructuredOutput = "no_structured_output"
	// CodeNonConforming: the answer's text is not JSON of the form asked
	// for, or not valid against the schema. Permanent: the chain falls back.
	CodeNonConforming = "non_conforming_output"
	// CodeInvalidSchema: the request's schema does not compile. A request
	// error (status 400): no hop is tried.
	CodeInvalidSchema = "invalid_schema"
	// CodeOutputTooLarge: an answer that must be checked outgrew the bytes
	// the Run may hold back. Permanent: the chain falls back.
	CodeOutputTooLarge = "answer_too_large"
)

// DefaultOutputLimit bounds the content bytes a Run holds back to check an
// answer against Request.Output when the Run is not Buffered (a streaming
// client): the front door's limit on a whole answer.
const DefaultOutputLimit int64 = 64 << 20

// outputCheck is what a Run holds an answer's text to when the request sets
// Output: JSON, an object for OutputJSON, valid against the schema for
// OutputJSONSchema.
type outputCheck struct {
	kind   sdk.OutputKind
	schema *jsonschema.Resolved // with OutputJSONSchema
}

// compileOutput prepares the check of o; nil when o is nil. A schema that
// does not compile is the request's fault: the error has status 400, which
// the front doors answer as an invalid request. No remote $ref is ever
// loaded: the chain opens no sockets.
func compileOutput(o *sdk.Output) (*outputCheck, error) {
	if o == nil {
		return nil, nil
	}
	switch o.Kind {
	case sdk.OutputJSON:
		return &outputCheck{kind: o.Kind}, nil
	case sdk.OutputJSONSchema:
	default:
		return nil, invalidSchemaError(fmt.Sprintf("unknown output kind %q", o.Kind))
	}
	if len(bytes.TrimSpace(o.Schema)) == 0 {
		return nil, invalidSchemaError("the response format has no schema")
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(o.Schema, &s); err != nil {
		return nil, invalidSchemaError(err.Error())
	}
	switch s.Schema {
	case "", "http://json-schema.org/draft-07/schema#", "https://json-schema.org/draft-07/schema#", "https://json-schema.org/draft/2020-12/schema":
	default:
		// The validator would refuse every answer; say so before any hop runs.
		return nil, invalidSchemaError(fmt.Sprintf("$schema %q is not supported: only draft-07 and draft 2020-12", s.Schema))
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		return nil, invalidSchemaError(err.Error())
	}
	return &outputCheck{kind: o.Kind, schema: rs}, nil
}

// check reports whether text, a whole answer's text, is of the form asked
// for; the error is a permanent non_conforming_output failure.
func (c *outputCheck) check(text []byte) *sdk.Error {
	var v any
	if err := json.Unmarshal(text, &v); err != nil {
		return nonConformingError("the answer is not JSON: " + err.Error())
	}
	if c.kind == sdk.OutputJSON {
		if _, ok := v.(map[string]any); !ok {
			return nonConformingError("the answer is not a JSON object")
		}
		return nil
	}
	if err := c.schema.Validate(v); err != nil {
		return nonConformingError("the answer does not match the response schema: " + err.Error())
	}
	return nil
}

// checkAnswer checks the answer s holds back, once it has finished
// cleanly; nil c checks nothing. An answer that ends in tool calls is not
// the final text and is not checked, nor is a refusal without content (it
// is the content_filter policy's).
func (c *outputCheck) checkAnswer(s *hopStream) *sdk.Error {
	if c == nil || s.finish.Finish == sdk.FinishToolCalls || (!s.started && s.finish.Finish == sdk.FinishContentFilter) {
		return nil
	}
	return c.check(heldText(s.held))
}

// heldText is the text of the answer events held back, in order.
func heldText(held []sdk.Event) []byte {
	n := 0
	for _, ev := range held {
		if ev.Type == sdk.EventTextDelta {
			n += len(ev.Text)
		}
	}
	b := make([]byte, 0, n)
	for _, ev := range held {
		if ev.Type == sdk.EventTextDelta {
			b = append(b, ev.Text...)
		}
	}
	return b
}

func invalidSchemaError(why string) *sdk.Error {
	return &sdk.Error{Class: sdk.ClassPermanent, Code: CodeInvalidSchema, Status: 400, Message: "the response schema does not compile: " + why}
}

func nonConformingError(why string) *sdk.Error {
	return &sdk.Error{Class: sdk.ClassPermanent, Code: CodeNonConforming, Message: why}
}

// noStructuredOutputError has status 400, as OpenAI answers a json_schema
// its model cannot take: the front doors answer an invalid request, which
// no retry fixes.
func noStructuredOutputError() *sdk.Error {
	return &sdk.Error{Class: sdk.ClassPermanent, Code: CodeNoStructuredOutput, Status: 400, Message: "no provider of the chain can guarantee the response schema (strict structured output)"}
}

func outputTooLargeError(limit int64) *sdk.Error {
	return &sdk.Error{Class: sdk.ClassPermanent, Code: CodeOutputTooLarge, Message: fmt.Sprintf("the answer outgrew the %d bytes that may be held back to check it against the response format", limit)}
}
