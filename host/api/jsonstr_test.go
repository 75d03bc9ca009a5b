package api

import (
	"bytes"
	"encoding/json"
	"testing"
)

// referenceJSONString is what encoding/json writes for s, HTML escaping off.
func referenceJSONString(t testing.TB, s string) string {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}

func TestAppendJSONString(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		"", "plain", `quote " and backslash \`, "tab\tnewline\nreturn\rbell\a nul\x00 unit\x1f del\x7f",
		"\b\f", "<html> & 'single'", "Olá, 世界 🌍", "line\u2028para\u2029", "bad utf-8: \xff\xfe end", "cut rune \xe4\xb8",
		"\xed\xa0\x80 surrogate", "{\"a\": 2, \"b\": 3}",
	} {
		got := string(appendJSONString([]byte("prefix:"), s))
		if want := "prefix:" + referenceJSONString(t, s); got != want {
			t.Errorf("appendJSONString(%q) = %s, want %s", s, got, want)
		}
	}
}

func FuzzAppendJSONString(f *testing.F) {
	for _, s := range []string{"", "a\"b\\c", "\x00\x1f\u2028\xff", "日本語"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := string(appendJSONString(nil, s)), referenceJSONString(t, s); got != want {
			t.Errorf("appendJSONString(%q) = %s, want %s", s, got, want)
		}
	})
}
