package daemon

import (
	"net/http"
	"strings"
	"testing"
)

// twoProviders is a chain of an OpenAI-compatible and an Anthropic
// provider, each a real plugin subprocess reaching its httptest upstream
// through the egress.
func twoProviders(first, second *upstream, extra string) string {
	return `
provider "first" {
  plugin   = "openai"
  base_url = "` + first.URL + `/v1"
  model    = "gpt-test"
  egress { response_timeout = "500ms" }
  timeouts { first_token = "2s" }
}
provider "second" {
  plugin   = "anthropic"
  base_url = "` + second.URL + `"
  model    = "claude-test"
}
chain "default" {
  providers = [provider.first, provider.second]
  retry {
    attempts        = 2
    backoff         = "10ms"
    max_retry_after = "1s"
  }
}
` + extra
}

func TestChainFaults(t *testing.T) {
	for _, c := range []struct {
		name         string
		first        []step
		wantText     string
		wantProvider string
		wantFirst    int    // calls to the first upstream
		wantTrail    string // substring of x-axon-trail
	}{
		{"first answers", []step{openaiText("gpt-test-0613", "hi", "there")}, "hi there", "first", 1, "first#1 ok"},
		{"500 then success is retried", []step{status(500, nil, `{"error":{"message":"boom","type":"server_error"}}`), openaiText("gpt-test", "recovered")}, "recovered", "first", 2, "first#1 retry transient"},
		{"429 honours Retry-After", []step{status(429, hdr("Retry-After", "0.05"), `{"error":{"message":"slow down","type":"rate_limit_error","code":"rate_limit_exceeded"}}`), openaiText("gpt-test", "ok")}, "ok", "first", 2, "first#2 ok"},
		{"connection reset falls back", []step{reset}, "from claude", "second", 2, "first#2 fallback transient"},
		{"silent upstream is bounded and falls back at once", []step{hang}, "from claude", "second", 1, "first#1 fallback transient/timeout"},
		{"malformed chunk is retried, then falls back", []step{openaiMalformed}, "from claude", "second", 2, "first#2 fallback transient"},
		{"stream cut before content falls back", []step{openaiCut("gpt-test")}, "from claude", "second", 2, "second#1 ok"},
		{"auth failure falls back at once", []step{status(401, nil, `{"error":{"message":"bad key","type":"invalid_request_error","code":"invalid_api_key"}}`)}, "from claude", "second", 1, "first#1 fallback auth_required"},
	} {
		t.Run(c.name, func(t *testing.T) {
			first := newUpstream(t, c.first...)
			second := newUpstream(t, anthropicText("claude-test-20250101", "from claude"))
			r := newRig(t, twoProviders(first, second, ""), Options{})
			resp := r.post("/v1/chat/completions", chatBody("default", false))
			if resp.status != http.StatusOK {
				t.Fatalf("status %d: %s (trail %s)", resp.status, resp.body, resp.header.Get("X-Axon-Trail"))
			}
			if got := chatText(t, resp.body); got != c.wantText {
				t.Errorf("text %q, want %q", got, c.wantText)
			}
			if got := resp.header.Get("X-Axon-Provider"); got != c.wantProvider {
				t.Errorf("x-axon-provider %q, want %q", got, c.wantProvider)
			}
			if trail := resp.header.Get("X-Axon-Trail"); !strings.Contains(trail, c.wantTrail) {
				t.Errorf("trail %q lacks %q", trail, c.wantTrail)
			}
			if got := first.count(); got != c.wantFirst {
				t.Errorf("first upstream called %d times, want %d", got, c.wantFirst)
			}
		})
	}
}

func TestOverloadedAnthropicFallsBackToOpenAI(t *testing.T) {
	claude := newUpstream(t, status(529, nil, anthropicOverloaded))
	gpt := newUpstream(t, openaiText("gpt-test-0613", "fallback", "answer"))
	r := newRig(t, `
provider "claude" {
  plugin   = "anthropic"
  base_url = "`+claude.URL+`"
  model    = "claude-test"
}
provider "gpt" {
  plugin   = "openai"
  base_url = "`+gpt.URL+`/v1"
  model    = "gpt-test"
}
chain "default" {
  providers = [provider.claude, provider.gpt]
  retry {
    attempts = 2
    backoff  = "10ms"
  }
}
`, Options{})
	// An Anthropic client, answered by an OpenAI-format provider.
	resp := r.post("/v1/messages", `{"model":"default","max_tokens":100,"messages":[{"role":"user","content":"hi"}]}`)
	if resp.status != http.StatusOK || !strings.Contains(resp.body, `"text":"fallback answer"`) {
		t.Fatalf("status %d body %s", resp.status, resp.body)
	}
	if !strings.Contains(resp.body, `"model":"gpt-test-0613"`) {
		t.Errorf("response does not name the model that answered: %s", resp.body)
	}
	if claude.count() != 2 {
		t.Errorf("529 was tried %d times, want 2 (one retry)", claude.count())
	}
	if trail := resp.header.Get("X-Axon-Trail"); !strings.Contains(trail, "claude#1 retry transient") {
		t.Errorf("trail %q", trail)
	}
}

func TestContextOverflowSkipsToLargerWindow(t *testing.T) {
	small := newUpstream(t, status(400, nil, openaiContextExceeded))
	same := newUpstream(t, openaiText("same", "never"))
	big := newUpstream(t, openaiText("big-model", "long", "context"))
	provider := func(name string, u *upstream, window int) string {
		return `
provider "` + name + `" {
  plugin         = "openai"
  base_url       = "` + u.URL + `/v1"
  model          = "` + name + `"
  context_window = ` + itoa(window) + `
}`
	}
	r := newRig(t, provider("small", small, 8192)+provider("same", same, 8192)+provider("big", big, 128000)+`
chain "default" {
  providers = [provider.small, provider.same, provider.big]
}
`, Options{})
	resp := r.post("/v1/chat/completions", chatBody("default", false))
	if resp.status != http.StatusOK || chatText(t, resp.body) != "long context" {
		t.Fatalf("status %d body %s", resp.status, resp.body)
	}
	if same.count() != 0 || small.count() != 1 {
		t.Errorf("calls: small %d (want 1), same-window %d (want 0: skipped)", small.count(), same.count())
	}
	if trail := resp.header.Get("X-Axon-Trail"); !strings.Contains(trail, "same#0 skip") && !strings.Contains(trail, "same skip") {
		t.Logf("trail: %s", trail)
	}
}

// TestStreamCutAfterContentEndsWithAnError: with no later hop that takes a
// prefill, a stream cut after content cannot be rescued (continuation_e2e_test.go
// has the hops that can): it ends with an in-band error, never a fallback.
func TestStreamCutAfterContentEndsWithAnError(t *testing.T) {
	first := newUpstream(t, openaiCut("gpt-test", "partial", " answer"))
	second := newUpstream(t, anthropicText("claude-test", "never"))
	cfg := strings.Replace(twoProviders(first, second, ""), `model    = "claude-test"`, "model    = \"claude-test\"\n  prefill  = false", 1)
	r := newRig(t, cfg, Options{})
	resp := r.post("/v1/chat/completions", chatBody("default", true))
	data := sseData(resp.body)
	if len(data) == 0 {
		t.Fatalf("no stream: %d %s", resp.status, resp.body)
	}
	if !strings.Contains(resp.body, "partial") {
		t.Errorf("the content sent before the cut is missing: %s", resp.body)
	}
	if last := data[len(data)-1]; last == "[DONE]" || !strings.Contains(last, `"error"`) {
		t.Errorf("stream ended with %q, want an explicit error event and no [DONE]", last)
	}
	if second.count() != 0 {
		t.Error("fell back after content had been sent")
	}
}

func TestEveryProviderDownDegradesThenRecovers(t *testing.T) {
	first := newUpstream(t, status(503, nil, `{"error":{"message":"down","type":"server_error"}}`))
	second := newUpstream(t, status(529, nil, anthropicOverloaded))
	r := newRig(t, twoProviders(first, second, ""), Options{})
	resp := r.post("/v1/chat/completions", chatBody("default", false))
	if resp.status != http.StatusServiceUnavailable {
		t.Fatalf("exhausted chain: status %d, want 503: %s", resp.status, resp.body)
	}
	if trail := resp.header.Get("X-Axon-Trail"); !strings.Contains(trail, "first#2") || !strings.Contains(trail, "second#2") {
		t.Errorf("trail %q does not show every attempt", trail)
	}
	second.script(anthropicText("claude-test", "back online"))
	resp = r.post("/v1/chat/completions", chatBody("default", false))
	if resp.status != http.StatusOK || chatText(t, resp.body) != "back online" {
		t.Fatalf("after recovery: %d %s", resp.status, resp.body)
	}
}

func TestStreamingThroughBothWireFormats(t *testing.T) {
	first := newUpstream(t, openaiText("gpt-test", "one", "two", "three"))
	second := newUpstream(t, anthropicText("claude-test", "unused"))
	r := newRig(t, twoProviders(first, second, ""), Options{})

	resp := r.post("/v1/chat/completions", chatBody("default", true))
	data := sseData(resp.body)
	if data[len(data)-1] != "[DONE]" || !strings.Contains(resp.body, `"content":" three"`) {
		t.Errorf("openai stream: %s", resp.body)
	}
	resp = r.post("/v1/messages", `{"model":"default/first","max_tokens":50,"stream":true,"messages":[{"role":"user","content":"hi"}]}`)
	if !strings.Contains(resp.body, "event: message_stop") || !strings.Contains(resp.body, `"text":" two"`) {
		t.Errorf("anthropic stream: %s", resp.body)
	}
	if resp.header.Get("X-Axon-Provider") != "first" {
		t.Errorf("pinned request answered by %q", resp.header.Get("X-Axon-Provider"))
	}
}

func TestMetricsExposeRequestsAndFallbacks(t *testing.T) {
	first := newUpstream(t, reset)
	second := newUpstream(t, anthropicText("claude-test", "ok"))
	r := newRig(t, twoProviders(first, second, ""), Options{})
	r.post("/v1/chat/completions", chatBody("default", false))
	resp, err := http.Get(r.door.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	_, _ = io_Copy(&b, resp)
	for _, want := range []string{
		`axon_chain_fallbacks_total{chain="default",from="first"} 1`,
		`axon_provider_errors_total{class="transient",provider="first"} 2`,
		`axon_chain_turns_total{chain="default",outcome="ok"} 1`,
		`axon_egress_bytes_total{host="127.0.0.1:`,
		`axon_requests_total{route="POST /v1/chat/completions",status="200"} 1`,
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}

func itoa(n int) string { return strconvItoa(n) }
