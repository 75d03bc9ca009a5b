package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// upstream stands in for a model provider: each request gets the next reply
// of its script (the last one repeats), and every request is recorded with
// the body the provider plugin sent.
type upstream struct {
	*httptest.Server
	mu       sync.Mutex
	script   []reply
	requests []request
}

// reply writes one scripted answer.
type reply func(w http.ResponseWriter)

// request is what the upstream received.
type request struct {
	Path   string
	Header http.Header
	Body   []byte
}

// newUpstream serves script until the test ends. Register it before axon,
// so that axon is stopped first.
func newUpstream(t *testing.T, script ...reply) *upstream {
	t.Helper()
	u := &upstream{script: script}
	u.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		u.mu.Lock()
		next := u.script[min(len(u.requests), len(u.script)-1)]
		u.requests = append(u.requests, request{Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
		u.mu.Unlock()
		next(w)
	}))
	t.Cleanup(u.Close)
	return u
}

// received returns the requests so far.
func (u *upstream) received() []request {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]request(nil), u.requests...)
}

// openaiStream sends chat.completion.chunk objects as Server-Sent Events,
// flushing each, then "data: [DONE]" unless cut is set.
func openaiStream(cut bool, chunks ...string) reply {
	return func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		for _, c := range chunks {
			fmt.Fprintf(w, "data: %s\n\n", c)
			w.(http.Flusher).Flush()
		}
		if !cut {
			io.WriteString(w, "data: [DONE]\n\n")
		}
	}
}

// event is one Anthropic Messages stream event: its name and data.
type event struct{ name, data string }

// anthropicStream sends Messages stream events, flushing each.
func anthropicStream(events ...event) reply {
	return func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		for _, e := range events {
			fmt.Fprintf(w, "event: %s\ndata: %s\n\n", e.name, e.data)
			w.(http.Flusher).Flush()
		}
	}
}

// jsonError answers with status and a JSON body.
func jsonError(status int, body string) reply {
	return func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
}

// OpenAI chat-completion chunks, built from their varying part.
func openaiChunk(model, choice string) string {
	return fmt.Sprintf(`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":%q,"choices":[%s]}`, model, choice)
}

func openaiDelta(model, delta string) string {
	return openaiChunk(model, `{"index":0,"delta":`+delta+`,"finish_reason":null}`)
}

func openaiContent(model, text string) string {
	return openaiDelta(model, fmt.Sprintf(`{"content":%q}`, text))
}

func openaiFinish(model, reason string) string {
	return openaiChunk(model, fmt.Sprintf(`{"index":0,"delta":{},"finish_reason":%q}`, reason))
}

func openaiUsage(model string, prompt, completion int) string {
	return fmt.Sprintf(`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":%q,"choices":[],"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}}`,
		model, prompt, completion, prompt+completion)
}

// openaiText streams words as content deltas, a stop, and usage.
func openaiText(model string, prompt int, words ...string) reply {
	chunks := []string{openaiDelta(model, `{"role":"assistant","content":""}`)}
	for _, w := range words {
		chunks = append(chunks, openaiContent(model, w))
	}
	chunks = append(chunks, openaiFinish(model, "stop"), openaiUsage(model, prompt, len(words)))
	return openaiStream(false, chunks...)
}

// openaiWeatherAndTime streams "Let me check." and then two parallel tool
// calls whose argument fragments interleave, the way OpenAI sends them.
func openaiWeatherAndTime(model string) reply {
	return openaiStream(false,
		openaiDelta(model, `{"role":"assistant","content":""}`),
		openaiContent(model, "Let me check."),
		openaiDelta(model, `{"tool_calls":[{"index":0,"id":"call_weather","type":"function","function":{"name":"get_weather","arguments":""}}]}`),
		openaiDelta(model, `{"tool_calls":[{"index":1,"id":"call_time","type":"function","function":{"name":"get_time","arguments":""}}]}`),
		openaiDelta(model, `{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\":"}}]}`),
		openaiDelta(model, `{"tool_calls":[{"index":1,"function":{"arguments":"{\"zone\":\"Asia/"}}]}`),
		openaiDelta(model, `{"tool_calls":[{"index":0,"function":{"arguments":"\"Paris\",\"unit\":\"celsius\"}"}}]}`),
		openaiDelta(model, `{"tool_calls":[{"index":1,"function":{"arguments":"Tokyo\"}"}}]}`),
		openaiFinish(model, "tool_calls"),
		openaiUsage(model, 52, 31),
	)
}

// anthropicText streams a Messages answer of words.
func anthropicText(model string, input int, words ...string) reply {
	events := []event{
		{"message_start", fmt.Sprintf(`{"type":"message_start","message":{"id":"msg_up","type":"message","role":"assistant","model":%q,"content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":%d,"output_tokens":1}}}`, model, input)},
		{"content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`},
		{"ping", `{"type":"ping"}`},
	}
	for _, w := range words {
		events = append(events, event{"content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":%q}}`, w)})
	}
	events = append(events,
		event{"content_block_stop", `{"type":"content_block_stop","index":0}`},
		event{"message_delta", fmt.Sprintf(`{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":%d}}`, len(words))},
		event{"message_stop", `{"type":"message_stop"}`})
	return anthropicStream(events...)
}

// anthropicWeatherAndTime streams "Let me check." and two tool_use blocks
// whose inputs arrive in fragments.
func anthropicWeatherAndTime(model string) reply {
	return anthropicStream(
		event{"message_start", fmt.Sprintf(`{"type":"message_start","message":{"id":"msg_up","type":"message","role":"assistant","model":%q,"content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":52,"output_tokens":1}}}`, model)},
		event{"content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`},
		event{"content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Let me check."}}`},
		event{"content_block_stop", `{"type":"content_block_stop","index":0}`},
		event{"content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_weather","name":"get_weather","input":{}}}`},
		event{"content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":""}}`},
		event{"content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"city\": \"Par"}}`},
		event{"content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"is\", \"unit\": \"celsius\"}"}}`},
		event{"content_block_stop", `{"type":"content_block_stop","index":1}`},
		event{"content_block_start", `{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_time","name":"get_time","input":{}}}`},
		event{"content_block_delta", `{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"zone\":"}}`},
		event{"content_block_delta", `{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":" \"Asia/Tokyo\"}"}}`},
		event{"content_block_stop", `{"type":"content_block_stop","index":2}`},
		event{"message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":31}}`},
		event{"message_stop", `{"type":"message_stop"}`},
	)
}
