package daemon

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The rows of issue 12 ("failover that rescues the answer"), end to end:
// real plugin processes, the egress, the chain and both front foDoors, against
// Go fake upstreams. Every call is bounded by foHangGuard, a deadline that
// turns a hang into a failure; no assertion here is about speed.

const foHangGuard = 60 * time.Second

// foDoor is one client wire format.
type foDoor struct {
	name string
	path string
	body func(stream bool) string
	// text is the answer's text as the client received it.
	text func(t *testing.T, stream bool, body string) string
}

var foDoors = []foDoor{
	{
		name: "openai", path: "/v1/chat/completions",
		body: func(stream bool) string { return chatBody("default", stream) },
		text: func(t *testing.T, stream bool, body string) string {
			if !stream {
				return chatText(t, body)
			}
			var b strings.Builder
			for _, d := range sseData(body) {
				var c struct {
					Choices []struct {
						Delta struct {
							Content string `json:"content"`
						} `json:"delta"`
					} `json:"choices"`
				}
				if d != "[DONE]" && json.Unmarshal([]byte(d), &c) == nil && len(c.Choices) > 0 {
					b.WriteString(c.Choices[0].Delta.Content)
				}
			}
			if !strings.HasSuffix(strings.TrimSpace(body), "data: [DONE]") {
				t.Errorf("stream does not end with [DONE]:\n%s", body)
			}
			return b.String()
		},
	},
	{
		name: "anthropic", path: "/v1/messages",
		body: func(stream bool) string {
			return fmt.Sprintf(`{"model":"default","max_tokens":100,"stream":%v,"messages":[{"role":"user","content":"Say hello."}]}`, stream)
		},
		text: func(t *testing.T, stream bool, body string) string {
			var b strings.Builder
			if !stream {
				var m struct {
					Content []struct {
						Type, Text string
					} `json:"content"`
				}
				if err := json.Unmarshal([]byte(body), &m); err != nil {
					t.Fatalf("not a message: %v\n%s", err, body)
				}
				for _, c := range m.Content {
					b.WriteString(c.Text)
				}
				return b.String()
			}
			for _, d := range sseData(body) {
				var ev struct {
					Type  string `json:"type"`
					Delta struct {
						Type, Text string
					} `json:"delta"`
				}
				if json.Unmarshal([]byte(d), &ev) == nil && ev.Type == "content_block_delta" {
					b.WriteString(ev.Delta.Text)
				}
			}
			if !strings.Contains(body, `"type":"message_stop"`) {
				t.Errorf("stream does not end with message_stop:\n%s", body)
			}
			return b.String()
		},
	},
}

// askBounded sends one request through d, bounded by foHangGuard.
func (r *rig) askBounded(d foDoor, stream bool) response {
	r.t.Helper()
	client := &http.Client{Timeout: foHangGuard}
	resp, err := client.Post(r.door.URL+d.path, "application/json", strings.NewReader(d.body(stream)))
	if err != nil {
		r.t.Fatalf("%s stream=%v: %v", d.name, stream, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		r.t.Fatalf("%s stream=%v: reading the body: %v", d.name, stream, err)
	}
	return response{status: resp.StatusCode, header: resp.Header, body: string(b)}
}

// failoverConfig is first (OpenAI-compatible) then second (Anthropic), with
// the defaults of a real configuration but for the lines in firstExtra and
// chainExtra.
func failoverConfig(first, second *upstream, firstExtra, chainExtra string) string {
	return `
provider "first" {
  plugin   = "openai"
  base_url = "` + first.URL + `/v1"
  model    = "gpt-test"
  ` + firstExtra + `
}
provider "second" {
  plugin   = "anthropic"
  base_url = "` + second.URL + `"
  model    = "claude-test"
  prefill  = false # these rows are about failover; continuation_e2e_test.go continues
}
chain "default" {
  providers = [provider.first, provider.second]
  ` + chainExtra + `
}
`
}

// foEach runs check for every door, streamed and not, re-scripting first
// before each call.
func foEach(t *testing.T, r *rig, first, second *upstream, steps []step, streams []bool, check func(t *testing.T, d foDoor, stream bool, resp response)) {
	t.Helper()
	// Start the first hop's plugin before any row: a plugin starts on first
	// use, inside the first-token bound, and on a loaded machine its start
	// alone can outlast a bound the test shortened to milliseconds.
	first.script(openaiText("gpt-test", "warm"))
	if resp := r.askBounded(foDoors[0], false); resp.status != http.StatusOK {
		t.Fatalf("warm-up: %d %s", resp.status, resp.body)
	}
	for _, d := range foDoors {
		for _, stream := range streams {
			first.script(steps...)
			second.script(anthropicText("claude-test-20250101", "from claude"))
			resp := r.askBounded(d, stream)
			t.Run(fmt.Sprintf("%s/stream=%v", d.name, stream), func(t *testing.T) {
				check(t, d, stream, resp)
			})
		}
	}
}

func foWantAnswer(t *testing.T, d foDoor, stream bool, resp response, text, provider string) {
	t.Helper()
	if resp.status != http.StatusOK {
		t.Fatalf("status %d: %s (trail %s)", resp.status, resp.body, resp.header.Get("X-Axon-Trail"))
	}
	if got := d.text(t, stream, resp.body); got != text {
		t.Errorf("text %q, want %q", got, text)
	}
	if got := resp.header.Get("X-Axon-Provider"); got != provider {
		t.Errorf("x-axon-provider %q, want %q", got, provider)
	}
}

// foTrail checks the trail header of a response whose headers went out
// after the chain had finished (any response but a successful stream),
// with latencies and jittered waits elided.
func foTrail(t *testing.T, resp response, want string) {
	t.Helper()
	if got := foElide(resp.header.Get("X-Axon-Trail")); got != want {
		t.Errorf("trail\n got %s\nwant %s", got, want)
	}
}

// foElide replaces the timings of a trail, t=… and wait=…, which vary.
func foElide(s string) string { return foTimings.ReplaceAllString(s, "$1=…") }

var foTimings = regexp.MustCompile(`(wait|t)=\d+ms`)

func foSameJSON(t *testing.T, got, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		t.Fatalf("body is not JSON: %v\n%s", err, got)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("want is not JSON: %v", err)
	}
	if diff := cmp.Diff(w, g); diff != "" {
		t.Errorf("body (-want +got):\n%s", diff)
	}
}

// openaiRefusal is a reply the content filter blocked before any text.
func openaiRefusal(w http.ResponseWriter, _ *http.Request) {
	sse(w,
		`data: {"id":"c1","object":"chat.completion.chunk","model":"gpt-test","choices":[{"index":0,"delta":{"role":"assistant"}}]}`+"\n\n",
		`data: {"id":"c1","object":"chat.completion.chunk","model":"gpt-test","choices":[{"index":0,"delta":{},"finish_reason":"content_filter"}]}`+"\n\n",
		"data: [DONE]\n\n")
}

// openaiSilentAfterHeaders sends its headers and a role chunk at once, and
// then no token until the client gives up.
func openaiSilentAfterHeaders(w http.ResponseWriter, r *http.Request) {
	sse(w, `data: {"id":"c1","object":"chat.completion.chunk","model":"gpt-test","choices":[{"index":0,"delta":{"role":"assistant"}}]}`+"\n\n")
	<-r.Context().Done()
}

// openaiStallAfter streams some words and then goes silent.
func openaiStallAfter(words ...string) step {
	return func(w http.ResponseWriter, r *http.Request) {
		openaiCut("gpt-test", words...)(w, r)
		<-r.Context().Done()
	}
}

// openaiMalformedAfter streams some words and then a chunk that is not JSON.
func openaiMalformedAfter(words ...string) step {
	return func(w http.ResponseWriter, r *http.Request) {
		openaiCut("gpt-test", words...)(w, r)
		more(w, "data: {\"id\":\"c1\",\"choices\":[{\"delta\":{\"content\":\n\n")
	}
}

func openai503(w http.ResponseWriter, r *http.Request) {
	status(503, nil, `{"error":{"message":"down","type":"server_error"}}`)(w, r)
}

// foWantTurnLog checks the one info line of the last turn.
func foWantTurnLog(t *testing.T, r *rig, provider, outcome, trail string) {
	t.Helper()
	var last string
	for _, l := range strings.Split(r.logs.String(), "\n") {
		if strings.Contains(l, "[INFO]  axon.chain: turn:") {
			last = l
		}
	}
	p := provider
	if p == "" {
		p = `""` // a refusal has no answering provider
	}
	want := fmt.Sprintf("axon.chain: turn: chain=default provider=%s outcome=%s trail=%q", p, outcome, trail)
	if got := foElide(last); !strings.HasSuffix(got, want) {
		t.Errorf("turn log line\n got %s\nwant …%s", got, want)
	}
}

// Row 1: a refusal is one attempt and a clean refusal in the client's own
// format; the chain falls back only when it opts in.
func TestFailoverContentFilter(t *testing.T) {
	first := newUpstream(t, openaiRefusal)
	second := newUpstream(t, anthropicText("claude-test-20250101", "from claude"))
	const msg = "the provider refused to answer this request (content filter): openai: reply blocked by the content filter"
	r := newRig(t, failoverConfig(first, second, "", ""), Options{})
	foEach(t, r, first, second, []step{openaiRefusal}, []bool{false, true}, func(t *testing.T, d foDoor, stream bool, resp response) {
		if resp.status != http.StatusBadRequest {
			t.Fatalf("status %d, want 400: %s", resp.status, resp.body)
		}
		want := fmt.Sprintf(`{"error":{"message":%q,"type":"invalid_request_error","param":null,"code":"content_filter"}}`, msg)
		if d.name == "anthropic" {
			want = fmt.Sprintf(`{"type":"error","error":{"type":"invalid_request_error","message":%q}}`, msg)
		}
		foSameJSON(t, resp.body, want)
		if got := resp.header.Get("x-should-retry"); got != "false" {
			t.Errorf("x-should-retry %q, want false", got)
		}
		foTrail(t, resp, "first#1 stop content_filter t=…")
		if first.count() != 1 || second.count() != 0 {
			t.Errorf("attempts: first %d, second %d; want 1 and 0", first.count(), second.count())
		}
		foWantTurnLog(t, r, "", "refused", "first#1 stop content_filter t=…")
	})

	t.Run("opted in", func(t *testing.T) {
		first := newUpstream(t, openaiRefusal)
		second := newUpstream(t, anthropicText("claude-test-20250101", "from claude"))
		r := newRig(t, failoverConfig(first, second, "", "allow_content_filter_fallback = true"), Options{})
		foEach(t, r, first, second, []step{openaiRefusal}, []bool{false, true}, func(t *testing.T, d foDoor, stream bool, resp response) {
			foWantAnswer(t, d, stream, resp, "from claude", "second")
			if first.count() != 1 || second.count() != 1 {
				t.Errorf("attempts: first %d, second %d; want 1 and 1", first.count(), second.count())
			}
			foWantTurnLog(t, r, "second", "ok", "first#1 fallback content_filter t=…, second#1 ok t=…")
		})
	})
}

// Row 2: an upstream that accepts the connection and never sends headers
// is cut by the egress response-header timeout, and the chain moves on at
// once: no second silent wait on the same hop.
func TestFailoverNoHeaders(t *testing.T) {
	first := newUpstream(t, hang)
	second := newUpstream(t, anthropicText("claude-test-20250101", "from claude"))
	r := newRig(t, failoverConfig(first, second, `egress { response_timeout = "300ms" }
  timeouts { first_token = "1m" }`, ""), Options{})
	foEach(t, r, first, second, []step{hang}, []bool{false, true}, func(t *testing.T, d foDoor, stream bool, resp response) {
		foWantAnswer(t, d, stream, resp, "from claude", "second")
		if first.count() != 1 || second.count() != 1 {
			t.Errorf("attempts: first %d, second %d; want 1 and 1", first.count(), second.count())
		}
		foWantTurnLog(t, r, "second", "ok", "first#1 fallback transient/timeout t=…, second#1 ok t=…")
	})
}

// Row 3: headers at once, then no token within the first-token bound: the
// chain falls back at once instead of waiting out a retry.
func TestFailoverFirstTokenLate(t *testing.T) {
	first := newUpstream(t, openaiSilentAfterHeaders)
	second := newUpstream(t, anthropicText("claude-test-20250101", "from claude"))
	r := newRig(t, failoverConfig(first, second, `timeouts { first_token = "300ms" }`, ""), Options{})
	foEach(t, r, first, second, []step{openaiSilentAfterHeaders}, []bool{false, true}, func(t *testing.T, d foDoor, stream bool, resp response) {
		foWantAnswer(t, d, stream, resp, "from claude", "second")
		if first.count() != 1 || second.count() != 1 {
			t.Errorf("attempts: first %d, second %d; want 1 and 1", first.count(), second.count())
		}
		foWantTurnLog(t, r, "second", "ok", "first#1 fallback transient/first_token_timeout t=…, second#1 ok t=…")
	})
}

// Row 4: a non-streaming request commits nothing until the answer is
// complete, so a stream cut, stalled or malformed after some tokens is
// retried or replaced like a failure before the first byte. A streamed
// request, which has shown the client those tokens, ends with an in-band
// error instead (the contrast case).
func TestFailoverBufferedAfterTokens(t *testing.T) {
	for _, tc := range []struct {
		name      string
		step      step
		wantFirst int
		wantTrail string
	}{
		{"cut", openaiCut("gpt-test", "half", " an"), 2,
			"first#1 retry transient/cut_stream t=…, first#2 fallback transient/cut_stream wait=… t=…, second#1 ok t=…"},
		{"stalled", openaiStallAfter("half", " an"), 1,
			"first#1 fallback transient/idle_timeout t=…, second#1 ok t=…"},
		{"malformed", openaiMalformedAfter("half", " an"), 2,
			// a chunk broken off mid-JSON is a cut stream to the plugin
			"first#1 retry transient/cut_stream t=…, first#2 fallback transient/cut_stream wait=… t=…, second#1 ok t=…"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			first := newUpstream(t, tc.step)
			second := newUpstream(t, anthropicText("claude-test-20250101", "from claude"))
			r := newRig(t, failoverConfig(first, second, `timeouts { idle = "300ms" }`, `retry { backoff = "10ms" }`), Options{})
			foEach(t, r, first, second, []step{tc.step}, []bool{false}, func(t *testing.T, d foDoor, stream bool, resp response) {
				foWantAnswer(t, d, stream, resp, "from claude", "second")
				if first.count() != tc.wantFirst || second.count() != 1 {
					t.Errorf("attempts: first %d, second %d; want %d and 1", first.count(), second.count(), tc.wantFirst)
				}
				foWantTurnLog(t, r, "second", "ok", tc.wantTrail)
			})
			t.Run("streamed", func(t *testing.T) {
				first.script(tc.step)
				second.script(anthropicText("claude-test-20250101", "from claude"))
				resp := r.askBounded(foDoors[0], true)
				data := sseData(resp.body)
				if resp.status != http.StatusOK || len(data) != 4 || !strings.Contains(data[1], `"content":"half"`) || !strings.Contains(data[2], `"content":" an"`) ||
					!strings.HasPrefix(data[3], `{"error":{"message":"chain \"default\": first failed after the response had started: transient`) ||
					!strings.HasSuffix(data[3], `"type":"server_error","param":null,"code":"upstream_unavailable"}}`) {
					t.Errorf("a streamed answer that broke off must end with an in-band error, never [DONE]:\n%s", resp.body)
				}
				if second.count() != 0 {
					t.Errorf("second called %d times after content reached the client", second.count())
				}
			})
		})
	}
}

// Row 5: a 429 with Retry-After: 2, once, is retried on the same hop after
// at least the hint (jitter only adds to it).
func TestFailoverRetryAfter(t *testing.T) {
	limited := []step{status(429, hdr("Retry-After", "2"), `{"error":{"message":"slow down","type":"rate_limit_error","code":"rate_limit_exceeded"}}`), openaiText("gpt-test", "after", "the", "wait")}
	first := newUpstream(t, limited...)
	second := newUpstream(t, anthropicText("claude-test-20250101", "from claude"))
	r := newRig(t, failoverConfig(first, second, "", ""), Options{})
	foEach(t, r, first, second, limited, []bool{false}, func(t *testing.T, d foDoor, stream bool, resp response) {
		foWantAnswer(t, d, stream, resp, "after the wait", "first")
		if first.count() != 2 || second.count() != 0 {
			t.Errorf("attempts: first %d, second %d; want 2 and 0", first.count(), second.count())
		}
		trail := resp.header.Get("X-Axon-Trail")
		m := regexp.MustCompile(`^first#1 retry transient/429 hint=2000ms t=\d+ms, first#2 ok wait=(\d+)ms t=\d+ms$`).FindStringSubmatch(trail)
		if m == nil {
			t.Fatalf("trail %q", trail)
		}
		var wait int
		fmt.Sscan(m[1], &wait)
		if wait < 2000 || wait > 2400 {
			t.Errorf("waited %d ms, want the 2000 ms hint plus at most 20%% jitter", wait)
		}
	})
}

// Row 6: nothing is latched. A primary that answered 503 to several
// requests in a row is tried first, and answers, on the first request
// after it recovers.
func TestFailoverNothingLatched(t *testing.T) {
	const outage = 3
	var down []step
	for range 2 * outage { // each request tries the primary twice (one retry)
		down = append(down, openai503)
	}
	steps := append(down, openaiText("gpt-test", "primary", "is", "back"))
	first := newUpstream(t, steps...)
	second := newUpstream(t, anthropicText("claude-test-20250101", "from claude"))
	r := newRig(t, failoverConfig(first, second, "", `retry { backoff = "10ms" }`), Options{})
	for _, d := range foDoors {
		for _, stream := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/stream=%v", d.name, stream), func(t *testing.T) {
				first.script(steps...)
				for i := range outage {
					second.script(anthropicText("claude-test-20250101", "from claude"))
					resp := r.askBounded(d, stream)
					foWantAnswer(t, d, stream, resp, "from claude", "second")
					if got := first.count(); got != 2*(i+1) {
						t.Fatalf("request %d: primary called %d times in all, want %d", i+1, got, 2*(i+1))
					}
				}
				resp := r.askBounded(d, stream)
				foWantAnswer(t, d, stream, resp, "primary is back", "first")
				if got := first.count(); got != 2*outage+1 {
					t.Errorf("primary called %d times, want %d", got, 2*outage+1)
				}
				foWantTurnLog(t, r, "first", "ok", "first#1 ok t=…")
			})
		}
	}
}

// openaiNoDone streams a complete answer (finish reason and usage) and
// ends the body without the closing [DONE].
func openaiNoDone(w http.ResponseWriter, _ *http.Request) {
	sse(w,
		`data: {"id":"c1","object":"chat.completion.chunk","model":"gpt-test","choices":[{"index":0,"delta":{"content":"hello"}}]}`+"\n\n",
		`data: {"id":"c1","object":"chat.completion.chunk","model":"gpt-test","choices":[{"index":0,"delta":{"content":" world"}}]}`+"\n\n",
		`data: {"id":"c1","object":"chat.completion.chunk","model":"gpt-test","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`+"\n\n",
		`data: {"id":"c1","object":"chat.completion.chunk","model":"gpt-test","choices":[],"usage":{"prompt_tokens":7,"completion_tokens":2,"total_tokens":9}}`+"\n\n")
}

// Row: a complete stream without [DONE] is a complete answer, from the
// first hop, in one attempt.
func TestFailoverCompleteStreamWithoutDone(t *testing.T) {
	first := newUpstream(t, openaiNoDone)
	second := newUpstream(t, anthropicText("claude-test-20250101", "from claude"))
	r := newRig(t, failoverConfig(first, second, "", ""), Options{})
	foEach(t, r, first, second, []step{openaiNoDone}, []bool{false, true}, func(t *testing.T, d foDoor, stream bool, resp response) {
		foWantAnswer(t, d, stream, resp, "hello world", "first")
		if first.count() != 1 || second.count() != 0 {
			t.Errorf("attempts: first %d, second %d; want 1 and 0", first.count(), second.count())
		}
		foWantTurnLog(t, r, "first", "ok", "first#1 ok t=…")
	})
}
