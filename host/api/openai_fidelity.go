package api

import (
	"bytes"
	"encoding/json"
)

// openaiFields sorts every top-level field of a Chat Completions request:
// translated by decode, refused here, or listed as ignored. The table in
// README.md ("Fidelity") says why for each.
func openaiFields(body []byte) (ignoredList, error) {
	var l ignoredList
	err := members(body, func(key, v []byte) error {
		switch string(key) {
		case "model", "messages", "tools", "functions", "tool_choice", "function_call",
			"max_tokens", "max_completion_tokens", "temperature", "stop", "stream",
			"stream_options", "n", "reasoning_effort", "response_format",
			"parallel_tool_calls", "top_p", "seed":
			// translated by decode; what no decoder reads inside is listed
			ignoreNested(&l, v, openaiShape.members[string(key)])
		case "metadata":
			ignoreKeys(&l, "metadata", v, func(k string) bool { return k == "task" })
		case "logprobs", "top_logprobs":
			if !unset(v) {
				return unsupportedf(string(key), "log probabilities are not supported: no provider behind axon is asked for them")
			}
		case "audio":
			if !unset(v) {
				return unsupportedf("audio", "audio output is not supported")
			}
		case "modalities":
			if bytes.Contains(v, []byte(`"audio"`)) {
				return unsupportedf("modalities", `the "audio" modality is not supported: only "text"`)
			}
		case "web_search_options":
			if !unset(v) {
				return unsupportedf("web_search_options", "web search is not supported: axon runs no search for a provider")
			}
		default:
			// Cost, latency and tracking hints (service_tier, user, store,
			// prompt_cache_key, safety_identifier, prediction, ...),
			// sampling knobs no provider plugin takes (frequency_penalty,
			// presence_penalty, logit_bias, verbosity), and unknown fields.
			if !unset(v) {
				l.add("", key)
			}
		}
		return nil
	})
	return l, err
}

// openaiShape is what the decoder reads inside the fields it translates;
// any other member is listed as ignored (a message's name, an image's
// detail, a function's strict, ...).
var openaiShape = compile("", keys{
	"messages[]": {
		"role": nil, "content[]": openaiPartKeys, "tool_call_id": nil,
		"reasoning_content": nil, "reasoning": nil,
		"tool_calls[]": {"id": nil, "type": nil, "function": {"name": nil, "arguments": nil}},
	},
	"tools[]":         {"type": nil, "function": openaiFunctionKeys},
	"functions[]":     openaiFunctionKeys,
	"tool_choice":     {"type": nil, "function": {"name": nil}},
	"function_call":   {"name": nil},
	"response_format": {"type": nil, "json_schema": {"name": nil, "schema": nil, "strict": nil}},
	"stream_options":  {"include_usage": nil},
})

var (
	openaiFunctionKeys = keys{"name": nil, "description": nil, "parameters": nil}
	openaiPartKeys     = keys{
		"type": nil, "text": nil, "refusal": nil, "image_url": {"url": nil},
		"file":          {"file_data": nil, "filename": nil, "file_id": nil},
		"cache_control": cacheControlKeys,
	}
)

// openaiResponseFormat is response_format.
type openaiResponseFormat struct {
	Type       string `json:"type"`
	JSONSchema *struct {
		Name   string          `json:"name"`
		Schema json.RawMessage `json:"schema"`
		Strict *bool           `json:"strict"`
	} `json:"json_schema"`
}
