package daemon

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// step is one scripted upstream answer.
type step func(w http.ResponseWriter, r *http.Request)

// upstream answers each request with the next step of its script; after
// the script it repeats the last step. It counts requests.
type upstream struct {
	*httptest.Server
	mu    sync.Mutex
	steps []step
	calls int
}

func newUpstream(t *testing.T, steps ...step) *upstream {
	t.Helper()
	u := &upstream{steps: steps}
	u.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		u.mu.Lock()
		i := min(u.calls, len(u.steps)-1)
		u.calls++
		s := u.steps[i]
		u.mu.Unlock()
		s(w, r)
	}))
	t.Cleanup(u.Close)
	return u
}

func (u *upstream) count() int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.calls
}

func (u *upstream) script(steps ...step) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.steps, u.calls = steps, 0
}

func sse(w http.ResponseWriter, events ...string) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	more(w, events...)
}

// more writes further events of a stream sse started, flushing each.
func more(w http.ResponseWriter, events ...string) {
	for _, e := range events {
		io.WriteString(w, e)
		w.(http.Flusher).Flush()
	}
}

// openaiText streams words as an OpenAI chat completion.
func openaiText(model string, words ...string) step {
	return func(w http.ResponseWriter, _ *http.Request) {
		var ev []string
		for i, word := range words {
			if i > 0 {
				word = " " + word
			}
			ev = append(ev, fmt.Sprintf(`data: {"id":"c1","object":"chat.completion.chunk","model":%q,"choices":[{"index":0,"delta":{"content":%q}}]}`+"\n\n", model, word))
		}
		ev = append(ev,
			fmt.Sprintf(`data: {"id":"c1","object":"chat.completion.chunk","model":%q,"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`+"\n\n", model),
			fmt.Sprintf(`data: {"id":"c1","object":"chat.completion.chunk","model":%q,"choices":[],"usage":{"prompt_tokens":7,"completion_tokens":%d,"total_tokens":%d}}`+"\n\n", model, len(words), 7+len(words)),
			"data: [DONE]\n\n")
		sse(w, ev...)
	}
}

// openaiCut streams some words and then ends without finish or [DONE].
func openaiCut(model string, words ...string) step {
	return func(w http.ResponseWriter, _ *http.Request) {
		var ev []string
		for _, word := range words {
			ev = append(ev, fmt.Sprintf(`data: {"id":"c1","model":%q,"choices":[{"index":0,"delta":{"content":%q}}]}`+"\n\n", model, word))
		}
		sse(w, ev...)
	}
}

// openaiMalformed sends a chunk that is not JSON.
func openaiMalformed(w http.ResponseWriter, _ *http.Request) {
	sse(w, "data: {\"id\":\"c1\",\"choices\":[{\"delta\":{\"content\":\n\n")
}

// anthropicText streams a Messages answer.
func anthropicText(model, text string) step {
	return func(w http.ResponseWriter, _ *http.Request) {
		sse(w,
			fmt.Sprintf("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":%q,\"content\":[],\"usage\":{\"input_tokens\":9,\"output_tokens\":1}}}\n\n", model),
			"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n",
			fmt.Sprintf("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":%q}}\n\n", text),
			"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n",
			"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":3}}\n\n",
			"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")
	}
}

func status(code int, header http.Header, body string) step {
	return func(w http.ResponseWriter, _ *http.Request) {
		for k, v := range header {
			w.Header()[k] = v
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		io.WriteString(w, body)
	}
}

// reset closes the connection without an answer.
func reset(w http.ResponseWriter, _ *http.Request) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err == nil {
		conn.Close()
	}
}

// hang never answers until the client gives up.
func hang(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }

const anthropicOverloaded = `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`

const openaiContextExceeded = `{"error":{"message":"This model's maximum context length is 8192 tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`

func hdr(kv ...string) http.Header {
	h := http.Header{}
	for i := 0; i+1 < len(kv); i += 2 {
		h.Set(kv[i], kv[i+1])
	}
	return h
}
