package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/axonhq/axon/sdk"
)

// errorText returns the text of an Ollama error body, {"error":"..."}. The
// API has no error type or code, so this text is all there is to classify
// on; it is read, never returned. Anything else (an HTML page from a proxy,
// another API's error object) yields "".
func errorText(body []byte) string {
	var env struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &env) != nil {
		return ""
	}
	var s string
	if json.Unmarshal(env.Error, &s) != nil {
		return ""
	}
	return s
}

// httpError classifies a non-2xx response from its status, the wording of
// its error text and its retry header.
func httpError(status int, h http.Header, body []byte, now time.Time) *sdk.Error {
	e := classify(status, false, errorText(body))
	e.RetryAfter = sdk.RetryAfter(h, now) // from a proxy or ollama.com; a local server sends none
	return e
}

// lineError classifies an error line inside a 200 stream:
// {"error":"..."} with no done field.
func lineError(raw json.RawMessage) *sdk.Error {
	var s string
	_ = json.Unmarshal(raw, &s) // not a string: classified as an unknown error
	return classify(http.StatusOK, true, s)
}

// condition is what an error's text says, matched against the wording
// Ollama uses: it has no codes (docs/errors.md#ollama).
type condition struct {
	label string // safe to return: ours, not the server's
	class sdk.Class
}

// conditions are checked in order against the lowercased error text; the
// first match wins. A class "" leaves the class to the status.
var conditions = []struct {
	match func(string) bool
	condition
}{
	{func(s string) bool {
		return strings.Contains(s, "context length") && strings.Contains(s, "exceed") ||
			strings.Contains(s, "context window") && strings.Contains(s, "exceed")
	}, condition{"context length exceeded", sdk.ClassContextOverflow}},
	// A model that does not fit in memory will not fit on a retry either.
	{func(s string) bool {
		return strings.Contains(s, "out of memory") || strings.Contains(s, "requires more system memory")
	},
		condition{"out of memory", sdk.ClassPermanent}},
	{func(s string) bool { return strings.Contains(s, "does not support tools") },
		condition{"model does not support tools", ""}},
	{func(s string) bool { return strings.Contains(s, "does not support thinking") },
		condition{"model does not support thinking", ""}},
	{func(s string) bool { return strings.Contains(s, "not found") && strings.Contains(s, "model") },
		condition{"model not found", ""}},
}

// classify applies the taxonomy as docs/errors.md#ollama maps it.
// inBand marks an error line inside a 200 stream.
func classify(status int, inBand bool, text string) *sdk.Error {
	c := condition{label: "error"}
	lower := strings.ToLower(text)
	for _, k := range conditions {
		if k.match(lower) {
			c = k.condition
			break
		}
	}
	switch {
	case c.class != "":
	case inBand: // the server failed after it accepted the request
		c.class = sdk.ClassTransient
	default: // 404 model not found and 400 are permanent; 401, 402 only from remote servers
		c.class = sdk.StatusClass(status)
	}
	e := &sdk.Error{Class: c.class, Status: status}
	if inBand {
		e.Message = fmt.Sprintf("ollama %s (in-band, HTTP %d)", c.label, status)
	} else {
		e.Message = fmt.Sprintf("ollama %s (HTTP %d)", c.label, status)
	}
	return e
}
