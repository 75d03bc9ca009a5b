package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"

	"github.com/axonhq/axon/sdk"
)

// mimeJSON is the responseMimeType that makes the model answer JSON.
const mimeJSON = "application/json"

// output renders structured output into generationConfig. Any JSON object
// is responseMimeType "application/json" alone; a JSON Schema adds
// responseJsonSchema, the GenerationConfig field that takes JSON Schema as
// it is ("an alternative to responseSchema that accepts JSON Schema. If
// set, responseSchema must be omitted, but responseMimeType is required
// and must be set to application/json": GenerationConfig in the Gemini
// API reference, v1beta; google.protobuf.Value in the generativelanguage
// v1beta protos). responseSchema, the OpenAPI subset, is never sent, so
// the schema is not translated. The schema's name has no place on the
// wire.
func output(g *wireGenConfig, o *sdk.Output) error {
	switch o.Kind {
	case sdk.OutputJSON:
		g.ResponseMimeType = mimeJSON
		return nil
	case sdk.OutputJSONSchema:
		s, err := jsonSchema(o.Schema)
		if err != nil {
			return sdk.Permanentf("gemini: structured output%s: the schema must be a JSON object", quoted(o.Name))
		}
		g.ResponseMimeType, g.ResponseJSONSchema = mimeJSON, s
		return nil
	}
	return sdk.Permanentf("gemini: structured output: unknown kind %q", o.Kind)
}

// quoted is " \"name\"" for an error message, or nothing.
func quoted(name string) string {
	if name == "" {
		return ""
	}
	return fmt.Sprintf(" %q", name)
}

// jsonSchema prepares a JSON Schema object for a *JsonSchema field: the
// "$schema" keyword is dropped (the API refuses the meta-schema keyword);
// anything but a JSON object is an error.
func jsonSchema(raw json.RawMessage) (json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	var obj map[string]json.RawMessage
	if len(raw) == 0 || raw[0] != '{' {
		return nil, errors.New("not a JSON object")
	}
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, err
	}
	if _, ok := obj["$schema"]; !ok {
		return raw, nil
	}
	delete(obj, "$schema")
	return sdk.EncodeJSON(obj)
}

// documentParts renders a document: its bytes as inlineData (a PDF, or
// plain text, which Gemini reads as it reads a PDF's text), or, given only
// by URL, as fileData, as images are (the host fetches a URL first, since
// Info.InlineMedia is set, so a URL reaches here only from a caller that
// bypasses it). Gemini's parts have no title or context: when the
// document has either, a text part saying so goes just before it, so the
// model still reads what the client said the document is.
func documentParts(d sdk.Document) ([]wirePart, error) {
	var parts []wirePart
	if intro := documentIntro(d); intro != "" {
		parts = append(parts, textPart(intro))
	}
	mt := d.MediaType
	if mt == "" && len(d.Data) > 0 {
		mt = http.DetectContentType(d.Data)
	}
	if mt != "" {
		if parsed, _, err := mime.ParseMediaType(mt); err == nil {
			mt = parsed
		}
	}
	switch {
	case len(d.Data) == 0 && d.URL == "":
		return nil, errors.New("a document needs data or a URL")
	case len(d.Data) == 0:
		if mt == "" {
			mt = "application/pdf" // a document by URL is a PDF (sdk.Document)
		}
		if mt != "application/pdf" {
			return nil, fmt.Errorf("a document by URL must be a PDF, not %q", mt)
		}
		return append(parts, wirePart{FileData: &wireFileData{MimeType: mt, FileURI: d.URL}}), nil
	case mt == "application/pdf", mt == "text/plain":
		return append(parts, wirePart{InlineData: &wireBlob{MimeType: mt, Data: d.Data}}), nil
	}
	return nil, fmt.Errorf("document media type %q: Gemini takes application/pdf or text/plain documents", mt)
}

// documentIntro is the text that stands for a document's title and
// context, or "" when it has neither.
func documentIntro(d sdk.Document) string {
	switch {
	case d.Title != "" && d.Context != "":
		return fmt.Sprintf("Document %q: %s", d.Title, d.Context)
	case d.Title != "":
		return fmt.Sprintf("Document %q:", d.Title)
	case d.Context != "":
		return "Document: " + d.Context
	}
	return ""
}
