package daemon

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// The provider faults of issue 12, through real plugin subprocesses, the
// egress and both front doors: a refusal is answered as one, and a stream
// with one undecodable event still delivers its whole answer.

// Refusal bodies as the vendors send them (a 400 in both cases).
const (
	openaiPolicyViolation = `{"error":{"code":"content_policy_violation","message":"Your request was rejected as a result of our safety system.","param":null,"type":"invalid_request_error"}}`
	azureContentFilter    = `{"error":{"message":"The response was filtered due to the prompt triggering Azure OpenAI's content management policy.","type":null,"param":"prompt","code":"content_filter","status":400,"innererror":{"code":"ResponsibleAIPolicyViolation","content_filter_result":{"hate":{"filtered":false,"severity":"safe"},"jailbreak":{"filtered":true,"detected":true},"self_harm":{"filtered":false,"severity":"safe"},"sexual":{"filtered":false,"severity":"safe"},"violence":{"filtered":false,"severity":"safe"}}}}}`
)

// TestContentFilterIsAnsweredAsARefusal: a provider's refusal is tried
// once, is not handed to the next hop (the chain does not opt in), and the
// client gets a refusal in its own error format, streamed or not.
func TestContentFilterIsAnsweredAsARefusal(t *testing.T) {
	for _, fault := range []struct{ name, body string }{
		{"openai content_policy_violation", openaiPolicyViolation},
		{"azure content_filter", azureContentFilter},
	} {
		t.Run(fault.name, func(t *testing.T) {
			first := newUpstream(t, status(400, nil, fault.body))
			second := newUpstream(t, anthropicText("claude-test", "an answer the provider refused"))
			r := newRig(t, twoProviders(first, second, ""), Options{})
			for _, door := range []struct {
				name, path, body string
				refusal          func(t *testing.T, body string)
			}{
				{"openai", "/v1/chat/completions", chatBody("default", false), wantOpenAIRefusal},
				{"openai streamed", "/v1/chat/completions", chatBody("default", true), wantOpenAIRefusal},
				{"anthropic", "/v1/messages", messagesBody(false), wantAnthropicRefusal},
				{"anthropic streamed", "/v1/messages", messagesBody(true), wantAnthropicRefusal},
			} {
				t.Run(door.name, func(t *testing.T) {
					first.script(status(400, nil, fault.body))
					second.script(anthropicText("claude-test", "an answer the provider refused"))
					resp := r.post(door.path, door.body)
					trail := resp.header.Get("X-Axon-Trail")
					if got := first.count(); got != 1 {
						t.Errorf("first hop: %d upstream attempts, want exactly 1 (trail %s)", got, trail)
					}
					if got := second.count(); got != 0 {
						t.Errorf("second hop: %d upstream attempts, want none: the chain does not allow a content filter fallback (trail %s)", got, trail)
					}
					if resp.status != http.StatusBadRequest {
						t.Errorf("status %d, want 400: %s (trail %s)", resp.status, resp.body, trail)
					}
					if strings.Contains(resp.body, "refused answer") || strings.Contains(resp.body, "an answer the provider refused") {
						t.Errorf("the client got the next hop's answer: %s", resp.body)
					}
					door.refusal(t, resp.body)
				})
			}
		})
	}
}

func messagesBody(stream bool) string {
	return fmt.Sprintf(`{"model":"default","max_tokens":100,"stream":%v,"messages":[{"role":"user","content":"hi"}]}`, stream)
}

// wantOpenAIRefusal checks an OpenAI error body naming the content filter.
func wantOpenAIRefusal(t *testing.T, body string) {
	t.Helper()
	var e struct {
		Error struct {
			Type, Code, Message string
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(body), &e); err != nil {
		t.Fatalf("not an OpenAI error body: %v\n%s", err, body)
	}
	if e.Error.Type != "invalid_request_error" || e.Error.Code != "content_filter" || !strings.Contains(e.Error.Message, "refused") {
		t.Errorf("OpenAI error %+v, want invalid_request_error / content_filter, a refusal", e.Error)
	}
}

// wantAnthropicRefusal checks an Anthropic error body saying the request was
// refused.
func wantAnthropicRefusal(t *testing.T, body string) {
	t.Helper()
	var e struct {
		Type  string `json:"type"`
		Error struct {
			Type, Message string
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(body), &e); err != nil {
		t.Fatalf("not an Anthropic error body: %v\n%s", err, body)
	}
	if e.Type != "error" || e.Error.Type != "invalid_request_error" || !strings.Contains(e.Error.Message, "refused") {
		t.Errorf("Anthropic error %s %+v, want error / invalid_request_error, a refusal", e.Type, e.Error)
	}
}

// openaiWithBadEvent is openaiText's stream with one event that is not
// JSON after the first word.
func openaiWithBadEvent(model string, words ...string) step {
	return func(w http.ResponseWriter, r *http.Request) {
		rec := &eventRecorder{header: http.Header{}}
		openaiText(model, words...)(rec, r)
		events := strings.SplitAfter(rec.body.String(), "\n\n")
		bad := `data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"th` + "\n\n"
		events = append(events[:1], append([]string{bad}, events[1:]...)...)
		sse(w, events...)
	}
}

// eventRecorder captures what a step writes, to rewrite it.
type eventRecorder struct {
	header http.Header
	body   strings.Builder
}

func (e *eventRecorder) Header() http.Header         { return e.header }
func (e *eventRecorder) Write(b []byte) (int, error) { return e.body.Write(b) }
func (e *eventRecorder) WriteHeader(int)             {}
func (e *eventRecorder) Flush()                      {}

// TestUndecodableEventIsSkipped: one event that is not JSON, in a stream
// that then completes, costs nothing: the client gets the same answer as
// from the clean stream, through both front doors, streamed or not, in one
// attempt. With strict_stream the event fails the attempt as before: a
// transient failure, retried, then a fallback.
func TestUndecodableEventIsSkipped(t *testing.T) {
	words := []string{"hi", "there", "friend"}
	first := newUpstream(t, openaiText("gpt-test", words...))
	second := newUpstream(t, anthropicText("claude-test", "from claude"))
	r := newRig(t, twoProviders(first, second, `
provider "strict" {
  plugin        = "openai"
  base_url      = "`+first.URL+`/v1"
  model         = "gpt-test"
  strict_stream = true
}
chain "strict" {
  providers = [provider.strict, provider.second]
  retry {
    attempts = 2
    backoff  = "10ms"
  }
}
`), Options{})

	for _, req := range []struct{ name, path, body string }{
		{"openai", "/v1/chat/completions", chatBody("default", false)},
		{"openai streamed", "/v1/chat/completions", chatBody("default", true)},
		{"anthropic", "/v1/messages", messagesBody(false)},
		{"anthropic streamed", "/v1/messages", messagesBody(true)},
	} {
		t.Run(req.name, func(t *testing.T) {
			first.script(openaiText("gpt-test", words...))
			clean := r.post(req.path, req.body)
			first.script(openaiWithBadEvent("gpt-test", words...))
			skipped := r.post(req.path, req.body)
			if skipped.status != http.StatusOK {
				t.Fatalf("status %d: %s (trail %s)", skipped.status, skipped.body, skipped.header.Get("X-Axon-Trail"))
			}
			if got := first.count(); got != 1 {
				t.Errorf("%d upstream attempts, want 1", got)
			}
			if second.count() != 0 {
				t.Errorf("the answer fell back: %s", skipped.header.Get("X-Axon-Trail"))
			}
			// The turn's log line carries the trail, streamed or not (a streamed
			// answer's header is sent before the finish that reports the count).
			var turn string
			for _, l := range strings.Split(r.logs.String(), "\n") {
				if strings.Contains(l, "axon.chain: turn:") {
					turn = l
				}
			}
			if !strings.Contains(turn, "first#1 ok skipped=1 ") {
				t.Errorf("the turn line does not count the skipped event: %s", turn)
			}
			want, got := answerBytes(t, clean.body), answerBytes(t, skipped.body)
			if got != want {
				t.Errorf("answer with a skipped event:\n%s\nwant the clean stream's:\n%s", got, want)
			}
			if !strings.Contains(got, "hi there friend") && !strings.Contains(got, `" friend"`) {
				t.Errorf("answer lacks the words: %s", got)
			}
		})
	}

	t.Run("strict", func(t *testing.T) {
		first.script(openaiWithBadEvent("gpt-test", words...))
		second.script(anthropicText("claude-test", "from claude"))
		resp := r.post("/v1/chat/completions", chatBody("strict", false))
		trail := resp.header.Get("X-Axon-Trail")
		if resp.status != http.StatusOK || chatText(t, resp.body) != "from claude" {
			t.Fatalf("status %d: %s (trail %s)", resp.status, resp.body, trail)
		}
		if got := first.count(); got != 2 {
			t.Errorf("%d attempts on the strict hop, want 2 (a transient failure, retried)", got)
		}
		if !strings.Contains(trail, "strict#2 fallback transient") {
			t.Errorf("trail %q lacks the strict hop's fallback", trail)
		}
	})

	// A stream the plugin read to its end is a clean finish in the
	// egress log, not a cancellation. Only the lenient block's streams
	// are read to their end: the strict block abandons its stream at the
	// bad event, and whether that is before or after the upstream sent
	// the rest is a race, so its lines may rightly say cancelled.
	for _, line := range strings.Split(r.logs.String(), "\n") {
		if strings.Contains(line, "egress: plugin=first ") && strings.Contains(line, "status=200") && strings.Contains(line, "canceled") {
			t.Errorf("a finished stream logged as cancelled: %s", line)
		}
	}
}

// answerBytes is a reply with what differs between two identical answers
// (ids, timestamps) taken out: the answer a client reads, byte for byte.
func answerBytes(t *testing.T, body string) string {
	t.Helper()
	var b strings.Builder
	lines := strings.Split(body, "\n")
	for _, l := range lines {
		data, isEvent := strings.CutPrefix(l, "data: ")
		if !isEvent {
			if strings.HasPrefix(l, "{") {
				data = l
			} else {
				b.WriteString(l + "\n")
				continue
			}
		}
		var v any
		if json.Unmarshal([]byte(data), &v) != nil {
			b.WriteString(l + "\n")
			continue
		}
		scrub(v)
		out, _ := json.Marshal(v)
		b.Write(out)
		b.WriteString("\n")
	}
	return b.String()
}

// scrub drops the fields that differ per request.
func scrub(v any) {
	switch x := v.(type) {
	case map[string]any:
		for _, k := range []string{"id", "created", "system_fingerprint"} {
			delete(x, k)
		}
		for _, c := range x {
			scrub(c)
		}
	case []any:
		for _, c := range x {
			scrub(c)
		}
	}
}
