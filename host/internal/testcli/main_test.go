package main

import (
	"strings"
	"testing"
)

func TestParseArgs(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want run
	}{
		{[]string{"-p", "hi", "--output-format", "json"}, run{prompt: "hi", format: "json"}},
		{[]string{"--output-format=stream-json", "--verbose", "-p", "hi"}, run{prompt: "hi", format: "jsonl"}},
		{[]string{"exec", "--json", "--model", "m1", "the prompt"}, run{prompt: "the prompt", format: "text", model: "m1"}},
		{[]string{"-o", "jsonl", "-m", "m2", "--tools", "", "last"}, run{prompt: "last", format: "jsonl", model: "m2"}},
		{[]string{"-p", " --help"}, run{prompt: " --help", format: "text"}},
		{nil, run{format: "text"}},
	} {
		if got := parseArgs(c.args); got != c.want {
			t.Errorf("parseArgs(%q) = %+v, want %+v", c.args, got, c.want)
		}
	}
}

func TestBehaviour(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ prompt, word, arg string }{
		{"Say hello.", "echo", ""},
		{"please env HTTPS_PROXY now", "env", "HTTPS_PROXY"},
		{"User:\nreach https://example.com/x\n\nAssistant:\nok", "reach", "https://example.com/x"},
		{"limit", "limit", ""},
		{"hang and crash", "hang", "and"},
	} {
		if w, a := behaviour(c.prompt); w != c.word || a != c.arg {
			t.Errorf("behaviour(%q) = %q, %q; want %q, %q", c.prompt, w, a, c.word, c.arg)
		}
	}
}

func TestChunks(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"you said: héllo wörld", "a", "ab", "you said: one two three four"} {
		parts := chunks(s)
		if strings.Join(parts, "") != s || len(parts) > 3 {
			t.Errorf("chunks(%q) = %q: want at most three pieces that make it", s, parts)
		}
		for _, p := range parts {
			if strings.ToValidUTF8(p, "") != p {
				t.Errorf("chunks(%q): piece %q splits a rune", s, p)
			}
		}
	}
}
