package daemon

import (
	"fmt"
	"net/http"
	"testing"
)

// A request option the provider that answers does not render (by its
// plugin's Info.Options), or a feature its wire lacks (Info.Lacks), is named in x-axon-ignored as the client's field,
// through real plugin processes: the answering hop's, not a hop that failed
// before it.
func TestUnrenderedOptionsNamed(t *testing.T) {
	first := newUpstream(t)
	second := newUpstream(t)
	r := newRig(t, twoProviders(first, second, ""), Options{})
	const (
		anthropicKnobs = `{"model":%q,"max_tokens":64,"stream":%v,"top_k":5,"top_p":0.9,
			"thinking":{"type":"enabled","budget_tokens":1024},"messages":[{"role":"user","content":"hi"}]}`
		openaiKnobs = `{"model":%q,"stream":%v,"seed":7,"top_p":0.5,"reasoning_effort":"low",
			"messages":[{"role":"user","content":"hi"}]}`
	)
	for _, c := range []struct {
		name, path, body string
		first, second    []step
		wantProvider     string
		want             string
	}{
		{"anthropic knobs to an openai provider", "/v1/messages", fmt.Sprintf(anthropicKnobs, "default", false),
			[]step{openaiText("gpt-test", "hi")}, nil, "first", "thinking,top_k"},
		{"streamed", "/v1/messages", fmt.Sprintf(anthropicKnobs, "default", true),
			[]step{openaiText("gpt-test", "hi")}, nil, "first", "thinking,top_k"},
		{"openai knobs to an anthropic provider", "/v1/chat/completions", fmt.Sprintf(openaiKnobs, "default/second", false),
			nil, []step{anthropicText("claude-test", "hi")}, "second", "reasoning_effort,seed"},
		{"the answering hop's, after a fallback", "/v1/messages", fmt.Sprintf(anthropicKnobs, "default", false),
			[]step{status(400, nil, `{"error":{"message":"no"}}`)}, []step{anthropicText("claude-test", "hi")}, "second", ""},
		{"a cache breakpoint to an openai provider, which caches on its own", "/v1/messages",
			`{"model":"default","max_tokens":64,"system":[{"type":"text","text":"long","cache_control":{"type":"ephemeral"}}],"messages":[{"role":"user","content":"hi"}]}`,
			[]step{openaiText("gpt-test", "hi")}, nil, "first", "cache_control"},
		{"the breakpoint reaches an anthropic provider", "/v1/messages",
			`{"model":"default/second","max_tokens":64,"system":[{"type":"text","text":"long","cache_control":{"type":"ephemeral"}}],"messages":[{"role":"user","content":"hi"}]}`,
			nil, []step{anthropicText("claude-test", "hi")}, "second", ""},
		{"responses reasoning.effort to an anthropic provider", "/v1/responses",
			`{"model":"default/second","store":false,"reasoning":{"effort":"low"},"input":"hi"}`,
			nil, []step{anthropicText("claude-test", "hi")}, "second", "reasoning.effort"},
	} {
		t.Run(c.name, func(t *testing.T) {
			first.script(c.first...)
			second.script(c.second...)
			resp := r.post(c.path, c.body)
			if resp.status != http.StatusOK {
				t.Fatalf("status %d: %s", resp.status, resp.body)
			}
			if got := resp.header.Get("X-Axon-Provider"); got != c.wantProvider {
				t.Errorf("answered by %q, want %q (trail %s)", got, c.wantProvider, resp.header.Get("X-Axon-Trail"))
			}
			if got := resp.header.Get("X-Axon-Ignored"); got != c.want {
				t.Errorf("x-axon-ignored %q, want %q", got, c.want)
			}
		})
	}
}
