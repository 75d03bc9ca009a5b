package daemon

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Issue 12, mid-stream continuation, end to end: an OpenAI-compatible
// first hop breaks off a streamed answer after some text; the Anthropic
// second hop, which declares prefill, carries it on, and the client gets
// one complete answer through either front door.

const canonical = "The quick brown fox jumps."

// bodyUpstream is an upstream that records each request body.
type bodyUpstream struct {
	*httptest.Server
	mu     sync.Mutex
	steps  []step
	bodies []string
}

func newBodyUpstream(t *testing.T) *bodyUpstream {
	u := &bodyUpstream{}
	u.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		u.mu.Lock()
		i := min(len(u.bodies), len(u.steps)-1)
		u.bodies = append(u.bodies, string(b))
		s := u.steps[i]
		u.mu.Unlock()
		s(w, r)
	}))
	t.Cleanup(u.Close)
	return u
}

func (u *bodyUpstream) script(steps ...step) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.steps, u.bodies = steps, nil
}

func (u *bodyUpstream) got() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]string(nil), u.bodies...)
}

func continuationConfig(first *upstream, second *bodyUpstream) string {
	return `
provider "first" {
  plugin   = "openai"
  base_url = "` + first.URL + `/v1"
  model    = "gpt-test"
  timeouts { idle = "1s" }
}
provider "second" {
  plugin   = "anthropic"
  base_url = "` + second.URL + `"
  model    = "claude-test"
}
chain "default" {
  providers = [provider.first, provider.second]
  retry { backoff = "10ms" }
}
`
}

func TestContinuationE2E(t *testing.T) {
	first := newUpstream(t, openaiCut("gpt-test", "The", " quick", " brown"))
	second := newBodyUpstream(t)
	r := newRig(t, continuationConfig(first, second), Options{})
	const prefill = `{"role":"assistant","content":[{"type":"text","text":"The quick brown"}]}`

	for _, tc := range []struct {
		name    string
		first   step
		second  []step
		text    string // what the client receives
		ok      bool
		trail   string
		prefill []bool // per request to second: carried the prefill
	}{
		{"cut, prefill", openaiCut("gpt-test", "The", " quick", " brown"),
			[]step{anthropicText("claude-test-20250101", " fox jumps.")}, canonical, true,
			"first#1 cut after 15 bytes transient/cut_stream t=…, second#1 continue prefill ok t=…", []bool{true}},
		{"idle timeout, prefill", openaiStallAfter("The", " quick", " brown"),
			[]step{anthropicText("claude-test-20250101", " fox jumps.")}, canonical, true,
			"first#1 cut after 15 bytes transient/idle_timeout t=…, second#1 continue prefill ok t=…", []bool{true}},
		{"prefill rejected, regenerate matches", openaiCut("gpt-test", "The", " quick", " brown"),
			[]step{status(400, nil, `{"type":"error","error":{"type":"invalid_request_error","message":"prefill not supported"}}`), anthropicText("claude-test-20250101", canonical)},
			canonical, true,
			"first#1 cut after 15 bytes transient/cut_stream t=…, second#1 continue prefill retry permanent/400 t=…, second#2 continue regenerate ok t=…", []bool{true, false}},
		{"prefill rejected, regenerate differs", openaiCut("gpt-test", "The", " quick", " brown"),
			[]step{status(400, nil, `{"type":"error","error":{"type":"invalid_request_error","message":"prefill not supported"}}`), anthropicText("claude-test-20250101", "A quick fox.")},
			"The quick brown", false,
			"first#1 cut after 15 bytes transient/cut_stream t=…, second#1 continue prefill retry permanent/400 t=…, second#2 continue regenerate mismatch permanent/continue_mismatch t=…", []bool{true, false}},
	} {
		for _, d := range foDoors {
			t.Run(tc.name+"/"+d.name, func(t *testing.T) {
				first.script(tc.first)
				second.script(tc.second...)
				began := time.Now()
				resp := r.askBounded(d, true)
				if el := time.Since(began); el > 45*time.Second {
					t.Errorf("the call took %s", el)
				}
				if resp.status != http.StatusOK {
					t.Fatalf("status %d: %s", resp.status, resp.body)
				}
				got := streamedText(d, resp.body)
				if got != tc.text {
					t.Errorf("client text %q, want %q\n%s", got, tc.text, resp.body)
				}
				inBand := strings.Contains(resp.body, `"error"`)
				if tc.ok == inBand {
					t.Errorf("in-band error %v, want %v:\n%s", inBand, !tc.ok, resp.body)
				}
				if tc.ok {
					d.text(t, true, resp.body) // checks the clean end
				}
				if first.count() != 1 {
					t.Errorf("first called %d times, want 1", first.count())
				}
				bodies := second.got()
				if len(bodies) != len(tc.prefill) {
					t.Fatalf("second called %d times, want %d", len(bodies), len(tc.prefill))
				}
				for i, want := range tc.prefill {
					if has := strings.Contains(bodies[i], prefill); has != want {
						t.Errorf("request %d to second carries the prefill: %v, want %v\n%s", i+1, has, want, bodies[i])
					}
				}
				foWantTurnLogContains(t, r, tc.trail)
			})
		}
	}
}

// streamedText is the text of a streamed answer, whether or not it ended
// cleanly.
func streamedText(d foDoor, body string) string {
	var b strings.Builder
	for _, data := range sseData(body) {
		if d.name == "openai" {
			if i := strings.Index(data, `"content":`); i >= 0 && strings.Contains(data, `"delta"`) {
				var s string
				fmt.Sscanf(data[i+len(`"content":`):], "%q", &s)
				b.WriteString(s)
			}
			continue
		}
		if strings.Contains(data, `"content_block_delta"`) {
			if i := strings.Index(data, `"text":`); i >= 0 {
				var s string
				fmt.Sscanf(data[i+len(`"text":`):], "%q", &s)
				b.WriteString(s)
			}
		}
	}
	return b.String()
}

func foWantTurnLogContains(t *testing.T, r *rig, trail string) {
	t.Helper()
	var last string
	for _, l := range strings.Split(r.logs.String(), "\n") {
		if strings.Contains(l, "axon.chain: turn:") {
			last = l
		}
	}
	if got := foElide(last); !strings.Contains(got, fmt.Sprintf("trail=%q", trail)) {
		t.Errorf("turn log line\n got %s\nwant trail=%q", got, trail)
	}
}

// openaiCutInToolCall streams text, then the first fragment of a tool call,
// and ends there: the plugin holds the call until it is whole, so the client
// has seen only text, yet the answer it was getting held a call.
func openaiCutInToolCall(model string, words ...string) step {
	return func(w http.ResponseWriter, r *http.Request) {
		openaiCut(model, words...)(w, r)
		sse(w, fmt.Sprintf(`data: {"id":"c1","model":%q,"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"lookup","arguments":"{\"q\":"}}]}}]}`+"\n\n", model))
	}
}

// TestNoContinuationAfterAToolCallBegan: a stream that breaks after a tool
// call started is never continued, though a later hop takes a prefill: the
// client gets the text it had and the in-band error, and the second hop is
// never asked.
func TestNoContinuationAfterAToolCallBegan(t *testing.T) {
	first := newUpstream(t, nil)
	second := newBodyUpstream(t)
	r := newRig(t, continuationConfig(first, second), Options{})
	for _, d := range foDoors {
		t.Run(d.name, func(t *testing.T) {
			first.script(openaiCutInToolCall("gpt-test", "The", " quick"))
			second.script(anthropicText("claude-test-20250101", " brown fox."))
			began := time.Now()
			resp := r.askBounded(d, true)
			if el := time.Since(began); el > 45*time.Second {
				t.Errorf("the call took %s", el)
			}
			if resp.status != http.StatusOK {
				t.Fatalf("status %d: %s", resp.status, resp.body)
			}
			if got := streamedText(d, resp.body); got != "The quick" {
				t.Errorf("client text %q, want %q", got, "The quick")
			}
			if !strings.Contains(resp.body, `"error"`) {
				t.Errorf("no in-band error:\n%s", resp.body)
			}
			if n := len(second.got()); n != 0 {
				t.Errorf("second called %d times, want 0", n)
			}
			foWantTurnLogContains(t, r, "first#1 stop transient/cut_stream committed t=…")
		})
	}
}
