package session

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// upstream is a scripted model on 127.0.0.1 speaking OpenAI chat
// completions (streamed), reached by the real openai provider plugin
// through axon's egress. It is stateless, as a model is to the loop: the
// answer depends only on the conversation it is sent. Before the final
// answer, each of steps 0..steps-1 asks for perStep append_note calls
// whose ids and texts name the step and the call ("entry call_s1_0").
// A prompt containing "hang" makes it hold the request until the client
// goes away, telling hung when it starts to.
type upstream struct {
	*httptest.Server
	steps, perStep int
	hung           chan struct{}

	mu    sync.Mutex
	calls int
}

func newUpstream(t *testing.T, steps, perStep int) *upstream {
	t.Helper()
	u := &upstream{steps: steps, perStep: perStep, hung: make(chan struct{}, 16)}
	u.Server = httptest.NewServer(http.HandlerFunc(u.serve))
	t.Cleanup(u.Close)
	return u
}

type chatRequest struct {
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
}

func (u *upstream) serve(w http.ResponseWriter, r *http.Request) {
	u.mu.Lock()
	u.calls++
	u.mu.Unlock()
	var req chatRequest
	body, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, `{"error":{"message":"bad json","type":"invalid_request_error"}}`, http.StatusBadRequest)
		return
	}
	step := 0
	for _, m := range req.Messages {
		switch m.Role {
		case "user":
			step = 0
			if strings.Contains(string(m.Content), "hang") {
				u.hung <- struct{}{}
				<-r.Context().Done()
				return
			}
		case "assistant":
			step++
		}
	}
	w.Header().Set("Content-Type", "text/event-stream")
	chunk := func(v string) {
		io.WriteString(w, "data: "+v+"\n\n")
		w.(http.Flusher).Flush()
	}
	if step < u.steps {
		for i := 0; i < u.perStep; i++ {
			id := fmt.Sprintf("call_s%d_%d", step, i)
			args, _ := json.Marshal(map[string]string{"note": "log", "text": "entry " + id})
			tc, _ := json.Marshal(map[string]any{"index": i, "id": id, "type": "function", "function": map[string]string{"name": "append_note", "arguments": string(args)}})
			chunk(`{"id":"c","object":"chat.completion.chunk","model":"mock-1","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[` + string(tc) + `]}}]}`)
		}
		chunk(`{"id":"c","object":"chat.completion.chunk","model":"mock-1","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`)
	} else {
		for _, word := range []string{"All", " noted."} {
			chunk(fmt.Sprintf(`{"id":"c","object":"chat.completion.chunk","model":"mock-1","choices":[{"index":0,"delta":{"content":%q}}]}`, word))
		}
		chunk(`{"id":"c","object":"chat.completion.chunk","model":"mock-1","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`)
	}
	chunk(`{"id":"c","object":"chat.completion.chunk","model":"mock-1","choices":[],"usage":{"prompt_tokens":20,"completion_tokens":10,"total_tokens":30}}`)
	io.WriteString(w, "data: [DONE]\n\n")
}
