package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCompilePathRefuses(t *testing.T) {
	t.Parallel()
	for _, src := range []string{
		".", "a.", ".a", "a..b", "a*", "*a", "a=b", "a]", "[type=x", "[type]", "[=x]", "[a.b=x]", "a[*=x]", "a.[]",
	} {
		if _, err := compilePath(src); err == nil {
			t.Errorf("compilePath(%q) succeeded, want an error", src)
		}
	}
	if p, err := compilePath(""); p != nil || err != nil {
		t.Errorf(`compilePath("") = %v, %v; want nil, nil`, p, err)
	}
}

func TestPathSelects(t *testing.T) {
	t.Parallel()
	claudeLine := `{"type":"assistant","message":{"model":"m","content":[{"type":"thinking","thinking":"hmm"},{"type":"text","text":"Hel"},{"type":"tool_use","name":"x"},{"type":"text","text":"lo"}]}}`
	codexItem := `{"type":"item.completed","item":{"id":"item_3","type":"agent_message","text":"Done."}}`
	codexReasoning := `{"type":"item.completed","item":{"id":"item_0","type":"reasoning","text":"**Planning**"}}`
	gemini := `{"response":"Paris.","stats":{"models":{"gemini-2.5-pro":{"tokens":{"prompt":20,"candidates":3}},"gemini-2.5-flash-lite":{"tokens":{"prompt":5,"candidates":1}}}}}`
	result := `{"type":"result","is_error":true,"result":"Invalid API key","usage":{"input_tokens":12,"output_tokens":0},"n":-1,"f":2.5}`
	for _, c := range []struct {
		name, path, doc string
		text            string
		hasText         bool
		count           int64
		hasCount        bool
		flag            bool
		flagMsg         string
	}{
		{name: "key", path: "result", doc: result, text: "Invalid API key", hasText: true, flag: true, flagMsg: "Invalid API key"},
		{name: "nested key", path: "usage.input_tokens", doc: result, count: 12, hasCount: true},
		{name: "zero counts", path: "usage.output_tokens", doc: result, count: 0, hasCount: true},
		{name: "negative is no count", path: "n", doc: result},
		{name: "fraction is no count", path: "f", doc: result},
		{name: "bool flag", path: "is_error", doc: result, flag: true},
		{name: "false flag", path: "is_error", doc: `{"is_error":false}`},
		{name: "empty string is no flag", path: "error", doc: `{"error":""}`, text: "", hasText: true},
		{name: "absent", path: "nope.deeper", doc: result},
		{name: "index", path: "message.content.1.text", doc: claudeLine, text: "Hel", hasText: true},
		{name: "index out of range", path: "message.content.9.text", doc: claudeLine},
		{name: "index is not a key of an object", path: "message.0", doc: claudeLine},
		{name: "digits key of an object", path: "a.0", doc: `{"a":{"0":"zero"}}`, text: "zero", hasText: true},
		{name: "every text block, in order", path: "message.content.*[type=text].text", doc: claudeLine, text: "Hello", hasText: true},
		{name: "every element without filter", path: "message.content.*.text", doc: claudeLine, text: "Hello", hasText: true},
		{name: "top-level filter keeps", path: "[type=assistant].message.content.*[type=text].text", doc: claudeLine, text: "Hello", hasText: true},
		{name: "top-level filter drops", path: "[type=result].result", doc: claudeLine},
		{name: "flag from the first non-empty string", path: "message.content.*.text", doc: claudeLine, text: "Hello", hasText: true, flag: true, flagMsg: "Hel"},
		{name: "not-equal filter", path: "message[model!=<synthetic>].content.1.text", doc: claudeLine, text: "Hel", hasText: true},
		{name: "not-equal filter drops", path: "message[model!=m].content.1.text", doc: claudeLine},
		{name: "not-equal passes an absent member", path: "[absent!=x].type", doc: claudeLine, text: "assistant", hasText: true},
		{name: "filter value with dots", path: "[type=item.completed].item[type=agent_message].text", doc: codexItem, text: "Done.", hasText: true},
		{name: "filter keeps reasoning out", path: "[type=item.completed].item[type=agent_message].text", doc: codexReasoning},
		{name: "filter on a bool", path: "[is_error=true].result", doc: result, text: "Invalid API key", hasText: true},
		{name: "two filters", path: "[type=result][is_error=false].result", doc: result},
		{name: "numbers summed over object members", path: "stats.models.*.tokens.prompt", doc: gemini, count: 25, hasCount: true},
		{name: "filter on a non-object", path: "result[type=x]", doc: result},
		{name: "star over a string", path: "result.*", doc: result},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p, err := compilePath(c.path)
			if err != nil {
				t.Fatalf("compilePath(%q): %v", c.path, err)
			}
			doc, err := decodeJSON([]byte(c.doc))
			if err != nil {
				t.Fatal(err)
			}
			text, hasText := p.text(doc)
			count, hasCount := p.count(doc)
			got := []any{text, hasText, count, hasCount}
			want := []any{c.text, c.hasText, c.count, c.hasCount}
			if c.flag || c.flagMsg != "" || c.name == "false flag" || c.name == "empty string is no flag" {
				flag, msg := p.flag(doc)
				got, want = append(got, flag, msg), append(want, c.flag, c.flagMsg)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s on %s: [text ok count ok (flag msg)] (-want +got):\n%s", c.path, c.doc, diff)
			}
		})
	}
}

func TestDecodeJSONRefusesTrailingValues(t *testing.T) {
	t.Parallel()
	for _, in := range []string{`{"a":1} {"b":2}`, `{"a":1} x`, ``, `{`} {
		if _, err := decodeJSON([]byte(in)); err == nil {
			t.Errorf("decodeJSON(%q) succeeded", in)
		}
	}
}
