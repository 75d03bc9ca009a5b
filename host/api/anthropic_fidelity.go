package api

import (
	"encoding/json"
	"fmt"

	"github.com/axonhq/axon/sdk"
)

// anthropicFields sorts every top-level field of a Messages request:
// translated by decode, refused here, or listed as ignored. The table in
// README.md ("Fidelity") says why for each.
func anthropicFields(body []byte) (ignoredList, error) {
	var l ignoredList
	err := members(body, func(key, v []byte) error {
		switch string(key) {
		case "model", "max_tokens", "system", "messages", "tools", "tool_choice",
			"temperature", "stop_sequences", "stream", "thinking", "top_p", "top_k",
			"output_format", "output_config":
			// translated by decode; what no decoder reads inside is listed
			ignoreNested(&l, v, anthropicShape.members[string(key)])
		case "metadata":
			ignoreKeys(&l, "metadata", v, func(k string) bool { return k == "task" })
		case "mcp_servers":
			if !unset(v) {
				return unsupportedf("mcp_servers", "the MCP connector is not supported: MCP servers are run by Anthropic's side, which a request through axon may never reach; give the tools as client tools")
			}
		case "container":
			if !unset(v) {
				return unsupportedf("container", "containers are not supported: they belong to Anthropic's code execution tool")
			}
		default:
			// service_tier, context_management, inference_geo, and unknown
			// fields.
			if !unset(v) {
				l.add("", key)
			}
		}
		return nil
	})
	return l, err
}

// anthropicShape is what the decoder reads inside the fields it
// translates; any other member is listed as ignored (output_config.effort,
// a tool's strict, ...). A text block's citations, echoed from an earlier
// answer, are read whole: they are the answer's, not a request.
var anthropicShape = compile("", keys{
	"system[]":      {"type": nil, "text": nil, "cache_control": cacheControlKeys, "citations": nil},
	"messages[]":    {"role": nil, "content[]": anthropicBlockKeys(true)},
	"tools[]":       {"type": nil, "name": nil, "description": nil, "input_schema": nil, "cache_control": cacheControlKeys},
	"tool_choice":   {"type": nil, "name": nil, "disable_parallel_tool_use": nil},
	"thinking":      {"type": nil, "budget_tokens": nil},
	"output_format": anthropicFormatKeys,
	"output_config": {"format": anthropicFormatKeys},
})

var anthropicFormatKeys = keys{"type": nil, "schema": nil}

// anthropicBlockKeys are a content block's, any type's; with results, a
// tool_result's content holds blocks too (one level: a result holds no
// result).
func anthropicBlockKeys(results bool) keys {
	k := keys{
		"type": nil, "text": nil, "id": nil, "name": nil, "input": nil, "tool_use_id": nil,
		"is_error": nil, "thinking": nil, "signature": nil, "data": nil, "title": nil,
		"context": nil, "citations": nil, "cache_control": cacheControlKeys,
		"source": {"type": nil, "media_type": nil, "data": nil, "url": nil},
	}
	if results {
		k["content[]"] = anthropicBlockKeys(false)
	}
	return k
}

// anthropicFormat is output_config.format (and the beta output_format).
type anthropicFormat struct {
	Type   string          `json:"type"`
	Schema json.RawMessage `json:"schema"`
}

// anthropicOutput reads a structured-output format: json_schema, which
// Anthropic guarantees, so it is strict.
func anthropicOutput(param string, f *anthropicFormat) (*sdk.Output, error) {
	switch f.Type {
	case "json_schema":
		s, err := outputSchema(param+".schema", f.Schema)
		if err != nil {
			return nil, err
		}
		return &sdk.Output{Kind: sdk.OutputJSONSchema, Schema: s, Strict: true}, nil
	case "":
		return nil, missing(param + ".type")
	}
	return nil, invalidf(param+".type", `unknown type %q: want "json_schema"`, f.Type)
}

// anthropicDocument reads a document block: a PDF (base64 or url) or
// plain text, with its title and context. Citations are refused: no
// canonical part carries them back, so a client asking for them would get
// an answer without.
func anthropicDocument(param string, b anthropicBlock, cache sdk.Cache) (sdk.Document, error) {
	var citations struct {
		Enabled bool `json:"enabled"`
	}
	if len(b.Citations) > 0 && string(b.Citations) != "null" && json.Unmarshal(b.Citations, &citations) != nil {
		return sdk.Document{}, invalidf(param+".citations", `want {"enabled": true|false}`)
	}
	if citations.Enabled {
		return sdk.Document{}, unsupportedf(param+".citations.enabled", "citations are not supported")
	}
	src := b.Source
	sp := param + ".source"
	if src == nil {
		return sdk.Document{}, missing(sp)
	}
	doc := sdk.Document{Title: b.Title, Context: b.Context, Cache: cache}
	switch src.Type {
	case "base64":
		if src.MediaType != "application/pdf" {
			return sdk.Document{}, unsupportedf(sp+".media_type", "%q is not supported: only application/pdf", src.MediaType)
		}
		doc.MediaType = src.MediaType
		if src.Data.done {
			doc.Data = src.Data.data
		} else {
			pdf, err := base64Image(sp+".data", src.MediaType, src.Data.s)
			if err != nil {
				return sdk.Document{}, err
			}
			doc.Data = pdf.Data
		}
	case "text":
		if src.MediaType != "" && src.MediaType != "text/plain" {
			return sdk.Document{}, unsupportedf(sp+".media_type", "%q is not supported: only text/plain", src.MediaType)
		}
		doc.MediaType, doc.Data = "text/plain", []byte(src.Data.text())
	case "url":
		img, err := remoteImage(sp+".url", src.URL)
		if err != nil {
			return sdk.Document{}, err
		}
		doc.MediaType, doc.URL = "application/pdf", img.URL
	default:
		return sdk.Document{}, unsupportedf(sp+".type", "%q is not supported: only base64, text and url", src.Type)
	}
	if len(doc.Data) == 0 && doc.URL == "" {
		return sdk.Document{}, missing(fmt.Sprintf("%s.data", sp))
	}
	return doc, nil
}
