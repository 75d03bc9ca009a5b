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

// chatDocument renders d as a Chat Completions content part: a PDF as a
// file part with its bytes inline, plain text as a text part. The Chat
// Completions API takes no file by URL, so a PDF given only by URL is
// refused (api = "responses" takes one).
func chatDocument(d sdk.Document) (contentPart, error) {
	switch d.MediaType {
	case "text/plain":
		if d.URL != "" && len(d.Data) == 0 {
			return contentPart{}, sdk.Permanentf("a text document by URL: send its text inline")
		}
		return contentPart{Type: "text", Text: documentText(d)}, nil
	case "application/pdf":
		if len(d.Data) == 0 {
			if d.URL != "" {
				return contentPart{}, sdk.Unsupportedf("a PDF document by URL: the Chat Completions API takes files only inline (send the bytes, or use api = %q)", apiResponses)
			}
			return contentPart{}, sdk.Permanentf("document part with neither data nor url")
		}
		return contentPart{Type: "file", File: &chatFile{Filename: documentName(d), FileData: pdfDataURL(d.Data)}}, nil
	}
	return contentPart{}, sdk.Unsupportedf("document media type %q: only application/pdf and text/plain", d.MediaType)
}

// responsesDocument renders d as a Responses input item: a PDF as
// input_file (inline bytes, or its URL), plain text as input_text.
func responsesDocument(d sdk.Document) (any, error) {
	switch d.MediaType {
	case "text/plain":
		if d.URL != "" && len(d.Data) == 0 {
			return nil, sdk.Permanentf("a text document by URL: send its text inline")
		}
		return inputText{Type: "input_text", Text: documentText(d)}, nil
	case "application/pdf":
		switch {
		case len(d.Data) > 0:
			return inputFile{Type: "input_file", Filename: documentName(d), FileData: pdfDataURL(d.Data)}, nil
		case d.URL != "":
			return inputFile{Type: "input_file", FileURL: d.URL}, nil
		}
		return nil, sdk.Permanentf("document part with neither data nor url")
	}
	return nil, sdk.Unsupportedf("document media type %q: only application/pdf and text/plain", d.MediaType)
}
