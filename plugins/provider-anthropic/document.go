package main

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"unicode/utf8"

	"github.com/axonhq/axon/sdk"
)

// documentBlock renders a document: a PDF inline (base64 source) or by URL
// (url source), or plain text inline (text source), with its title,
// context and breakpoint.
func documentBlock(p sdk.Document) (wireBlock, error) {
	cc, err := cacheControl(p.Cache)
	if err != nil {
		return wireBlock{}, err
	}
	b := wireBlock{Type: "document", Title: p.Title, Context: p.Context, CacheControl: cc}
	mt := p.MediaType
	if mt == "" && len(p.Data) > 0 {
		mt = http.DetectContentType(p.Data)
	}
	if mt != "" {
		if parsed, _, err := mime.ParseMediaType(mt); err == nil {
			mt = parsed
		}
	}
	switch {
	case len(p.Data) == 0 && p.URL == "":
		return wireBlock{}, errors.New("a document needs data or a URL")
	case len(p.Data) == 0:
		if mt != "" && mt != "application/pdf" {
			return wireBlock{}, fmt.Errorf("a document by URL must be a PDF, not %q", mt)
		}
		b.Source = &wireSource{Type: "url", URL: p.URL}
	case mt == "application/pdf":
		b.Source = &wireSource{Type: "base64", MediaType: mt, Data: base64.StdEncoding.EncodeToString(p.Data)}
	case mt == "text/plain":
		if !utf8.Valid(p.Data) {
			return wireBlock{}, errors.New("a text/plain document must be UTF-8")
		}
		b.Source = &wireSource{Type: "text", MediaType: mt, Data: string(p.Data)}
	default:
		return wireBlock{}, fmt.Errorf("document media type %q: the Messages API takes application/pdf or text/plain", mt)
	}
	return b, nil
}

// wireOutput is output_config: the answer's JSON Schema.
type wireOutput struct {
	Format wireFormat `json:"format"`
}

type wireFormat struct {
	Type   string          `json:"type"` // json_schema
	Schema json.RawMessage `json:"schema"`
}
