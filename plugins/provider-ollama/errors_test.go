package main

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/axonhq/axon/sdk"
)

// TestClassify covers the Ollama rows of docs/errors.md#ollama: the class
// comes from the status, overridden only by the wording Ollama uses for
// conditions a status does not tell apart; the message is ours.
func TestClassify(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		status int
		inBand bool
		text   string
		want   sdk.Error
	}{
		"400 bad request":     {400, false, `json: cannot unmarshal string into Go struct field`, sdk.Error{Class: sdk.ClassPermanent, Status: 400, Message: "ollama error (HTTP 400)"}},
		"400 no tools":        {400, false, `registry.ollama.ai/library/gemma3:1b does not support tools`, sdk.Error{Class: sdk.ClassPermanent, Status: 400, Message: "ollama model does not support tools (HTTP 400)"}},
		"400 no thinking":     {400, false, `"gemma3:1b" does not support thinking`, sdk.Error{Class: sdk.ClassPermanent, Status: 400, Message: "ollama model does not support thinking (HTTP 400)"}},
		"400 context length":  {400, false, `the input length exceeds the context length`, sdk.Error{Class: sdk.ClassContextOverflow, Status: 400, Message: "ollama context length exceeded (HTTP 400)"}},
		"500 context length":  {500, false, `Input Length Exceeds The Context Length`, sdk.Error{Class: sdk.ClassContextOverflow, Status: 500, Message: "ollama context length exceeded (HTTP 500)"}},
		"413":                 {413, false, ``, sdk.Error{Class: sdk.ClassContextOverflow, Status: 413, Message: "ollama error (HTTP 413)"}},
		"401 cloud":           {401, false, `unauthorized`, sdk.Error{Class: sdk.ClassAuthRequired, Status: 401, Message: "ollama error (HTTP 401)"}},
		"403":                 {403, false, ``, sdk.Error{Class: sdk.ClassAuthRequired, Status: 403, Message: "ollama error (HTTP 403)"}},
		"402 cloud":           {402, false, ``, sdk.Error{Class: sdk.ClassQuotaExhausted, Status: 402, Message: "ollama error (HTTP 402)"}},
		"404 model":           {404, false, `model "llama9" not found, try pulling it first`, sdk.Error{Class: sdk.ClassPermanent, Status: 404, Message: "ollama model not found (HTTP 404)"}},
		"404 other":           {404, false, `404 page not found`, sdk.Error{Class: sdk.ClassPermanent, Status: 404, Message: "ollama error (HTTP 404)"}},
		"408":                 {408, false, ``, sdk.Error{Class: sdk.ClassTransient, Status: 408, Message: "ollama error (HTTP 408)"}},
		"429":                 {429, false, `too many requests`, sdk.Error{Class: sdk.ClassTransient, Status: 429, Message: "ollama error (HTTP 429)"}},
		"500 runner":          {500, false, `llama runner process has terminated: signal: killed`, sdk.Error{Class: sdk.ClassTransient, Status: 500, Message: "ollama error (HTTP 500)"}},
		"500 memory":          {500, false, `model requires more system memory (5.5 GiB) than is available (3.1 GiB)`, sdk.Error{Class: sdk.ClassPermanent, Status: 500, Message: "ollama out of memory (HTTP 500)"}},
		"500 cuda oom":        {500, false, `CUDA error: out of memory`, sdk.Error{Class: sdk.ClassPermanent, Status: 500, Message: "ollama out of memory (HTTP 500)"}},
		"502 cloud":           {502, false, ``, sdk.Error{Class: sdk.ClassTransient, Status: 502, Message: "ollama error (HTTP 502)"}},
		"in-band":             {200, true, `an error was encountered while running the model`, sdk.Error{Class: sdk.ClassTransient, Status: 200, Message: "ollama error (in-band, HTTP 200)"}},
		"in-band context":     {200, true, `the input length exceeds the context length`, sdk.Error{Class: sdk.ClassContextOverflow, Status: 200, Message: "ollama context length exceeded (in-band, HTTP 200)"}},
		"in-band model label": {200, true, `model "x" not found`, sdk.Error{Class: sdk.ClassTransient, Status: 200, Message: "ollama model not found (in-band, HTTP 200)"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := classify(tc.status, tc.inBand, tc.text)
			if diff := cmp.Diff(tc.want, *got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestHTTPErrorKeepsVendorTextInside: whatever the body says (model names,
// paths, a sign-in URL with a key), none of it is in the error.
func TestHTTPErrorKeepsVendorTextInside(t *testing.T) {
	t.Parallel()
	bodies := []string{
		`{"error":"model \"secret-finetune:7b\" not found, try pulling it first"}`,
		`{"error":"unauthorized","signin_url":"https://ollama.com/connect?name=host&key=c3NoLWVkMjU1MTk"}`,
		`{"error":{"type":"error","message":"an object, not a string"}}`,
		`<html>upstream /srv/models/secret-finetune failed</html>`,
	}
	for _, b := range bodies {
		for _, status := range []int{400, 401, 404, 500} {
			e := httpError(status, http.Header{}, []byte(b), time.Time{})
			for _, leak := range []string{"secret", "signin", "c3No", "object", "/srv"} {
				if strings.Contains(e.Error(), leak) {
					t.Errorf("HTTP %d, body %s: error %q leaks %q", status, b, e, leak)
				}
			}
		}
	}
}

func TestErrorText(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		`{"error":"model not found"}`:               "model not found",
		`{"error":{"message":"conformance"}}`:       "",
		`{"error":null}`:                            "",
		`<html>Bad Gateway</html>`:                  "",
		`{"error":"unauthorized","signin_url":"x"}`: "unauthorized",
	}
	for body, want := range tests {
		if got := errorText([]byte(body)); got != want {
			t.Errorf("errorText(%s) = %q, want %q", body, got, want)
		}
	}
}

func TestRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 4, 5, 14, 28, 55, 0, time.UTC)
	tests := map[string]struct {
		value string
		want  time.Duration
	}{
		"none":           {"", 0},
		"seconds":        {"7", 7 * time.Second},
		"fraction":       {"1.5", 1500 * time.Millisecond},
		"zero":           {"0", 0},
		"negative":       {"-3", 0},
		"huge":           {"1e300", sdk.MaxRetryAfter},
		"http date":      {"Sun, 05 Apr 2026 14:29:25 GMT", 30 * time.Second},
		"http date past": {"Sun, 05 Apr 2026 14:00:00 GMT", 0},
		"garbage":        {"soon", 0},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			h := http.Header{}
			if tc.value != "" {
				h.Set("Retry-After", tc.value)
			}
			if got := sdk.RetryAfter(h, now); got != tc.want {
				t.Errorf("sdk.RetryAfter(%q) = %v, want %v", tc.value, got, tc.want)
			}
		})
	}
}
