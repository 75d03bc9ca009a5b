package api

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/axonhq/axon/sdk"
)

// discardWriter is a ResponseWriter that flushes to nowhere.
type discardWriter struct{ h http.Header }

func (d *discardWriter) Header() http.Header         { return d.h }
func (d *discardWriter) Write(p []byte) (int, error) { return len(p), nil }
func (d *discardWriter) WriteHeader(int)             {}
func (d *discardWriter) Flush()                      {}

// benchExchange is a started stream of dialect d writing to nowhere.
func benchExchange(b *testing.B, d dialect) *exchange {
	b.Helper()
	cfg := defaultConfig()
	w := newRecorder(&discardWriter{h: http.Header{}}, time.Now())
	x := newExchange(cfg, w, d, &call{model: "default", req: &sdk.Request{}, stream: true, includeUsage: true}, "default", context.Background(), func() {})
	if err := x.Send(context.Background(), start("glm-4.6")); err != nil {
		b.Fatal(err)
	}
	if err := x.Send(context.Background(), text("first")); err != nil {
		b.Fatal(err)
	}
	return x
}

// BenchmarkStreamEvent is the cost of one streamed event: checking it,
// rendering its SSE frame, writing and flushing it.
func BenchmarkStreamEvent(b *testing.B) {
	ctx := context.Background()
	for _, d := range []struct {
		name string
		d    dialect
	}{{"openai", openaiDialect{}}, {"anthropic", anthropicDialect{}}} {
		b.Run(d.name+"/text_delta", func(b *testing.B) {
			x := benchExchange(b, d.d)
			ev := text(" the quick brown fox")
			b.ReportAllocs()
			for b.Loop() {
				if err := x.Send(ctx, ev); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(d.name+"/answer_in_one_batch", func(b *testing.B) {
			// A whole streamed answer whose 16 deltas arrive together:
			// the exchange, its frames and the end.
			evs := []sdk.Event{start("glm-4.6")}
			for range 16 {
				evs = append(evs, text(" the quick brown fox"))
			}
			evs = append(evs, usage(12, 16), finish(sdk.FinishStop))
			cfg := defaultConfig()
			c := &call{model: "default", req: &sdk.Request{}, stream: true, includeUsage: true}
			b.ReportAllocs()
			for b.Loop() {
				x := newExchange(cfg, newRecorder(&discardWriter{h: http.Header{}}, time.Now()), d.d, c, "default", ctx, func() {})
				if err := x.SendBatch(ctx, evs); err != nil {
					b.Fatal(err)
				}
				x.finish(&Answer{Provider: "glm"}, nil)
			}
		})
		b.Run(d.name+"/tool_call", func(b *testing.B) {
			x := benchExchange(b, d.d)
			ev := toolCall(0, "call_ehIWdjL1abZk1h8FWGLQ0Hie", "weather", `{"location":"Florence, Italy","unit":"celsius"}`)
			b.ReportAllocs()
			for b.Loop() {
				if err := x.Send(ctx, ev); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// benchConversation is a tool-using conversation of six turns.
const benchOpenAI = `{"model":"default","stream":true,"stream_options":{"include_usage":true},"max_tokens":4000,
"tools":[{"type":"function","function":{"name":"add","description":"Add two numbers","parameters":{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]}}},
{"type":"function","function":{"name":"multiply","description":"Multiply two numbers","parameters":{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]}}}],
"messages":[{"role":"system","content":"You are a helpful assistant. Always use both add and multiply at the same time."},
{"role":"user","content":"Add and multiply the number 2 and 3"},
{"role":"assistant","content":null,"tool_calls":[{"id":"call_a","type":"function","function":{"name":"add","arguments":"{\"a\": 2, \"b\": 3}"}},{"id":"call_m","type":"function","function":{"name":"multiply","arguments":"{\"a\": 2, \"b\": 3}"}}]},
{"role":"tool","tool_call_id":"call_a","content":"5"},{"role":"tool","tool_call_id":"call_m","content":"6"},
{"role":"assistant","content":"2 + 3 = 5 and 2 × 3 = 6."},{"role":"user","content":"Thanks! Now 4 and 5?"}]}`

const benchAnthropic = `{"model":"default","stream":true,"max_tokens":4000,"system":"You are a helpful assistant. Always use both add and multiply at the same time.",
"tools":[{"name":"add","description":"Add two numbers","input_schema":{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]}},
{"name":"multiply","description":"Multiply two numbers","input_schema":{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]}}],
"messages":[{"role":"user","content":"Add and multiply the number 2 and 3"},
{"role":"assistant","content":[{"type":"thinking","thinking":"Both tools.","signature":"EqQBCkYIBxgCKkB"},{"type":"tool_use","id":"toolu_a","name":"add","input":{"a":2,"b":3}},{"type":"tool_use","id":"toolu_m","name":"multiply","input":{"a":2,"b":3}}]},
{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_a","content":"5"},{"type":"tool_result","tool_use_id":"toolu_m","content":"6"}]},
{"role":"assistant","content":"2 + 3 = 5 and 2 × 3 = 6."},{"role":"user","content":"Thanks! Now 4 and 5?"}]}`

// BenchmarkDecode is the cost of turning a six-turn tool conversation into
// a canonical request.
func BenchmarkDecode(b *testing.B) {
	for _, d := range []struct {
		name string
		d    dialect
		body []byte
	}{{"openai", openaiDialect{}, []byte(benchOpenAI)}, {"anthropic", anthropicDialect{}, []byte(benchAnthropic)}} {
		b.Run(d.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(d.body)))
			for b.Loop() {
				if _, err := d.d.decode(d.body); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRoundTrip is one whole request over loopback HTTP: decode, a
// backend answering 50 text deltas and usage, and the response read to its
// end by the client.
func BenchmarkRoundTrip(b *testing.B) {
	events := []sdk.Event{start("glm-4.6")}
	for range 50 {
		events = append(events, text(" token"))
	}
	events = append(events, usage(120, 50), finish(sdk.FinishStop))
	srv := newServer(b, &fakeBackend{events: events})
	for _, c := range []struct{ name, path, body string }{
		{"openai/stream", "/v1/chat/completions", benchOpenAI},
		{"openai/whole", "/v1/chat/completions", strings.Replace(benchOpenAI, `"stream":true`, `"stream":false`, 1)},
		{"anthropic/stream", "/v1/messages", benchAnthropic},
		{"anthropic/whole", "/v1/messages", strings.Replace(benchAnthropic, `"stream":true`, `"stream":false`, 1)},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				resp, err := srv.Client().Post(srv.URL+c.path, "application/json", strings.NewReader(c.body))
				if err != nil {
					b.Fatal(err)
				}
				readAll(b, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					b.Fatalf("status %d", resp.StatusCode)
				}
			}
		})
	}
}
