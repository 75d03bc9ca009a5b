package main

import (
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"
)

// page is a response body made readable.
type page struct {
	title     string // HTML <title>, if any
	body      string
	truncated bool
	read      int // bytes of the response read
}

// render turns a response body into text by its media type (sniffed when
// the server sent none): HTML is extracted, text and JSON pass through,
// anything else is refused.
func render(contentType string, body []byte, truncated bool) (page, error) {
	mt := mediaType(contentType, body)
	p := page{truncated: truncated, read: len(body)}
	switch {
	case mt == "text/html" || mt == "application/xhtml+xml":
		p.title, p.body = extractHTML(body)
	case isText(mt):
		if truncated {
			body = trimPartialRune(body)
		}
		p.body = strings.ToValidUTF8(string(body), "\uFFFD")
	default:
		return page{}, fmt.Errorf("the response is %s, which this tool cannot show as text", mt)
	}
	return p, nil
}

// text is the tool result: a short header when there is something to say
// (a redirect, a title), the body cut to limit bytes, and a note when the
// response was longer than what was read.
func (p page) text(asked, final *url.URL, limit int) string {
	var b strings.Builder
	if final.String() != asked.String() {
		fmt.Fprintf(&b, "Redirected to: %s\n", final)
	}
	if p.title != "" {
		fmt.Fprintf(&b, "Title: %s\n", p.title)
	}
	if b.Len() > 0 {
		b.WriteString("\n")
	}
	body := cutText(p.body, limit)
	if body == "" {
		body = "(no text content)"
	}
	b.WriteString(body)
	if p.truncated {
		fmt.Fprintf(&b, "\n\n[truncated: the response is longer; the text above comes from its first %d bytes]", p.read)
	}
	return b.String()
}

func mediaType(contentType string, body []byte) string {
	if mt, _, err := mime.ParseMediaType(contentType); err == nil {
		return strings.ToLower(mt)
	}
	mt, _, _ := mime.ParseMediaType(http.DetectContentType(body))
	return mt
}

// isText reports whether a media type is text a model can read as is.
func isText(mt string) bool {
	if strings.HasPrefix(mt, "text/") || strings.HasSuffix(mt, "+json") || strings.HasSuffix(mt, "+xml") {
		return true
	}
	switch mt {
	case "application/json", "application/xml", "application/javascript", "application/x-ndjson",
		"application/yaml", "application/x-yaml", "application/toml":
		return true
	}
	return false
}

// trimPartialRune drops an incomplete UTF-8 sequence left at the end of b by
// a cut in the middle of a character.
func trimPartialRune(b []byte) []byte {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return b[:i]
			}
			return b
		}
	}
	return b
}

// cutText returns the longest prefix of s of at most n bytes that does not
// split a character.
func cutText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
