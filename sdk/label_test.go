package sdk_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/axonhq/axon/sdk"
)

func TestErrorLabelKeeps(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		"rate_limit_exceeded", "invalid_request_error", "RESOURCE_EXHAUSTED", "context_length_exceeded",
		"model_not_found", "insufficient_quota", "overloaded_error", "429", "1113",
		"organization_spend_limit_exceeded", "string_above_max_length", "API_KEY_SERVICE_BLOCKED",
		"billing_hard_limit_reached", "tool_use_failed", "error", "tokens",
		"ThrottlingException", "modelNotFound", "APIError", "InvalidURL", "Overloaded",
		"invalid-request", "model.not_found", "server_error.503",
		strings.Repeat("abcdefghijk_", 3) + "abcdefghijkl", // 48 bytes
	} {
		if got := sdk.ErrorLabel(s); got != s {
			t.Errorf("ErrorLabel(%q) = %q, want it kept", s, got)
		}
	}
}

func TestErrorLabelDrops(t *testing.T) {
	t.Parallel()
	for name, s := range map[string]string{
		// Vendor key shapes: made up, of the real lengths and alphabets.
		"openai project key":     "sk-proj-AbC123xYz789QwErTy456UiOp0aSdF",
		"openai legacy key":      "sk-T3BlbkFJq8Zx2VnW7mYpL4cR9sKd",
		"openai key, words only": "sk-proj-only-plain-words",
		"anthropic key":          "sk-ant-api03-Xy7Kp2Qm9Lw4Rt6Vb1Nc",
		"stripe secret":          "sk_live_51HqLyjWDarjtT1zdp7dc",
		"gemini key":             "AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY",
		"gemini key, letters":    "AIzaSyBxQwErTyUiOpAsDfGhJkLzXcVbNmQwEr",
		"xai key":                "xai-Q2w3E4r5T6y7U8i9O0pAsDfGhJkLzXcVbNm",
		"xai key, letters":       "xai-abcdefghij",
		"groq key":               "gsk_8fJ2kLm9QwPz4RtYvB7nXc1DhGsE",
		"github token":           "ghp_16C7e42F292c6912E7710c838347Ae178B4a",
		"github fine-grained":    "github_pat_11ABCDEFG0abcdefghijkl_mnop",
		"nvidia key":             "nvapi-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2",
		"langfuse public key":    "pk-lf-1234abcd-5678-efgh",
		"restricted key":         "rk-live-plain",
		"aws access key id":      "AKIAIOSFODNN7EXAMPLE",
		"anthropic request id":   "req_011Ca7jT9AHpgXgdv8igm4z9",
		// Random tokens.
		"hex 32":               "805757c5974a71270fa9f9133a54d065",
		"hex 40":               "29c1c2a29c4b02b1db3f564ef10313422426a7f7",
		"hex 64":               "99a2ac41d64f86af9fe7d20e89f46308dd759347ef4f2da507eafaf6dadabe3f",
		"hex 16":               "9f86d081884c7d65",
		"base62 32":            "Q2w3E4r5T6y7U8i9O0pAsDfGhJkLzXcV",
		"base62 letters 32":    "QwErTyUiOpAsDfGhJkLzXcVbNmQwErTy",
		"base62 letters 20":    "QwErTyUiOpAsDfGhJkLz",
		"jwt":                  "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.dozjgNryP4J3jVmN",
		"jwt header":           "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9",
		"jwt letters":          "eyJhbGciOi",
		"uuid":                 "7c9e6679-7425-40de-944b-e07fc1f90ae7",
		"long digits":          "1234567890",
		"word over 24 letters": "averyveryveryverylongword",
		// Not codes at all.
		"empty":             "",
		"spaces":            "rate limit exceeded",
		"markup":            "<script>alert(1)</script>",
		"non-ASCII":         "quota_épuisé",
		"over 48 bytes":     strings.Repeat("abcdefghijk_", 3) + "abcdefghijklm",
		"separators only":   "_-.",
		"leading separator": "_error",
		"doubled separator": "rate__limit",
		"colon":             "error:429",
	} {
		if got := sdk.ErrorLabel(s); got != "" {
			t.Errorf("%s: ErrorLabel(%q) = %q, want \"\"", name, s, got)
		}
	}
}

// TestErrorLabelKeepsRecordedCodes: every code, type and status an error
// object carries in the recorded provider responses is kept, so a plugin's
// messages name every real error.
func TestErrorLabelKeepsRecordedCodes(t *testing.T) {
	t.Parallel()
	dirs := []string{"../plugins/testdata/wire"}
	local, err := filepath.Glob("../plugins/*/testdata/wire")
	if err != nil {
		t.Fatal(err)
	}
	found := map[string][]string{} // value -> files
	for _, dir := range append(dirs, local...) {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			name := d.Name()
			if strings.HasSuffix(name, ".meta.json") || strings.HasSuffix(name, ".request.json") ||
				!strings.HasSuffix(name, ".json") && !strings.HasSuffix(name, ".sse") {
				return nil
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, doc := range jsonDocuments(b) {
				for _, v := range errorFields(doc, false) {
					found[v] = append(found[v], path)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	// The walk must reach the fixtures of every vendor shape, or it checks nothing.
	for _, want := range []string{"invalid_request_error", "RESOURCE_EXHAUSTED", "insufficient_quota", "tool_use_failed", "1113"} {
		if _, ok := found[want]; !ok {
			t.Errorf("no fixture yielded %q: the walk missed the recordings", want)
		}
	}
	for _, v := range slices.Sorted(maps.Keys(found)) {
		if got := sdk.ErrorLabel(v); got != v {
			t.Errorf("ErrorLabel(%q) = %q, want it kept (recorded in %s)", v, got, found[v][0])
		}
	}
}

// jsonDocuments returns b as one JSON document or, for a server-sent event
// stream, the JSON of each data line.
func jsonDocuments(b []byte) []any {
	var doc any
	if json.Unmarshal(b, &doc) == nil {
		return []any{doc}
	}
	var docs []any
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		data, ok := bytes.CutPrefix(sc.Bytes(), []byte("data:"))
		if ok && json.Unmarshal(data, &doc) == nil {
			docs = append(docs, doc)
		}
	}
	return docs
}

// errorFields returns the string values of "code", "type" and "status"
// in the error objects of v: an object under an "error" key, or one that
// says it is an error ("type":"error", Mistral's "object":"error").
// Free text with spaces is not a code.
func errorFields(v any, inError bool) []string {
	var out []string
	switch v := v.(type) {
	case map[string]any:
		if v["type"] == "error" || v["object"] == "error" {
			inError = true
		}
		for k, x := range v {
			if s, ok := x.(string); ok && inError && (k == "code" || k == "type" || k == "status") && !strings.Contains(s, " ") {
				out = append(out, s)
			}
			out = append(out, errorFields(x, inError || k == "error")...)
		}
	case []any:
		for _, x := range v {
			out = append(out, errorFields(x, inError)...)
		}
	}
	return out
}
