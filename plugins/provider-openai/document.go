package main

import (
	"encoding/base64"
	"strings"

	"github.com/axonhq/axon/sdk"
)

// defaultDocumentName is the filename of a PDF the request left untitled:
// OpenAI's file parts want one.
const defaultDocumentName = "document.pdf"

// chatFile is a Chat Completions file content part's file.
type chatFile struct {
	Filename string `json:"filename"`
	FileData string `json:"file_data"` // a data URL
}

// inputFile is a Responses API input_file content item.
type inputFile struct {
	Type     string `json:"type"` // input_file
	Filename string `json:"filename,omitempty"`
	FileData string `json:"file_data,omitempty"` // a data URL
	FileURL  string `json:"file_url,omitempty"`
}

// documentText renders a plain-text document as the text the model reads:
// OpenAI's file parts take PDFs, so text goes as text, headed by its title
// and context when the request gave them.
func documentText(d sdk.Document) string {
	var b strings.Builder
	if d.Title != "" {
		b.WriteString(d.Title)
		b.WriteString("\n\n")
	}
	if d.Context != "" {
		b.WriteString(d.Context)
		b.WriteString("\n\n")
	}
	b.Write(d.Data)
	return b.String()
}

func documentName(d sdk.Document) string {
	if d.Title != "" {
		return d.Title
	}
	return defaultDocumentName
}

func pdfDataURL(data []byte) string {
	return "data:application/pdf;base64," + base64.StdEncoding.EncodeToString(data)
}

// chatDocument renders d as Chat Completions content parts: a PDF as a
// file part with its bytes inline (its title the filename), after a text
// part with its context when the request gave one; plain text as a text
// part. The Chat Completions API takes no file by URL, so a PDF given only
// by URL is refused (api = "responses" takes one).
func chatDocument(d sdk.Document) ([]contentPart, error) {
	switch d.MediaType {
	case "text/plain":
		if d.URL != "" && len(d.Data) == 0 {
			return nil, sdk.Permanentf("a text document by URL: send its text inline")
		}
		return []contentPart{{Type: "text", Text: documentText(d)}}, nil
	case "application/pdf":
		if len(d.Data) == 0 {
			if d.URL != "" {
				return nil, sdk.Unsupportedf("a PDF document by URL: the Chat Completions API takes files only inline (send the bytes, or use api = %q)", apiResponses)
			}
			return nil, sdk.Permanentf("document part with neither data nor url")
		}
		file := contentPart{Type: "file", File: &chatFile{Filename: documentName(d), FileData: pdfDataURL(d.Data)}}
		if intro := pdfIntro(d, false); intro != "" {
			return []contentPart{{Type: "text", Text: intro}, file}, nil
		}
		return []contentPart{file}, nil
	}
	return nil, sdk.Unsupportedf("document media type %q: only application/pdf and text/plain", d.MediaType)
}

// pdfIntro is the text a PDF's file part has no field for: its context,
// and its title when the part carries no filename (a PDF by URL); "" when
// there is none.
func pdfIntro(d sdk.Document, withTitle bool) string {
	var b strings.Builder
	if withTitle && d.Title != "" {
		b.WriteString(d.Title)
	}
	if d.Context != "" {
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(d.Context)
	}
	return b.String()
}

// responsesDocument renders d as Responses input items: a PDF as
// input_file (inline bytes with its title the filename, or its URL), after
// an input_text with what the file part has no field for (its context; a
// URL's title too); plain text as input_text.
func responsesDocument(d sdk.Document) ([]any, error) {
	switch d.MediaType {
	case "text/plain":
		if d.URL != "" && len(d.Data) == 0 {
			return nil, sdk.Permanentf("a text document by URL: send its text inline")
		}
		return []any{inputText{Type: "input_text", Text: documentText(d)}}, nil
	case "application/pdf":
		var file inputFile
		switch {
		case len(d.Data) > 0:
			file = inputFile{Type: "input_file", Filename: documentName(d), FileData: pdfDataURL(d.Data)}
		case d.URL != "":
			file = inputFile{Type: "input_file", FileURL: d.URL}
		default:
			return nil, sdk.Permanentf("document part with neither data nor url")
		}
		if intro := pdfIntro(d, len(d.Data) == 0); intro != "" {
			return []any{inputText{Type: "input_text", Text: intro}, file}, nil
		}
		return []any{file}, nil
	}
	return nil, sdk.Unsupportedf("document media type %q: only application/pdf and text/plain", d.MediaType)
}
