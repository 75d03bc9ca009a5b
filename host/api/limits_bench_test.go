package api

import (
	"bytes"
	"context"
	"encoding/base64"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/axonhq/axon/sdk"
)

// BenchmarkWholeAnswer collects a non-streamed answer of n eight-byte text
// deltas and renders it. The time per delta must not grow with n: the
// answer is accumulated in linear time.
func BenchmarkWholeAnswer(b *testing.B) {
	ctx := context.Background()
	ev := text("8 bytes ")
	for _, n := range []int{25_000, 250_000} {
		b.Run("deltas="+strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(n * len(ev.Text)))
			for b.Loop() {
				w := newRecorder(&discardWriter{h: http.Header{}}, time.Now())
				x := newExchange(defaultConfig(), w, openaiDialect{}, &call{model: "default", req: &sdk.Request{}}, "default", ctx, func() {})
				for range n {
					if err := x.Send(ctx, ev); err != nil {
						b.Fatal(err)
					}
				}
				if err := x.Send(ctx, finish(sdk.FinishStop)); err != nil {
					b.Fatal(err)
				}
				x.finish(nil, nil)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/delta")
		})
	}
}

// BenchmarkRequestBody is the memory a large request costs the front door:
// reading a 4 MiB body and decoding it, through the handler, with a backend
// that answers at once. "alloc/body-byte" is the bytes allocated per byte
// of body: the body itself (1), the strings it decodes to (about 1 for
// text) and decoded images (0.75 of their base64).
func BenchmarkRequestBody(b *testing.B) {
	const size = 4 << 20
	img := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{0xA5}, size*3/4))
	txt := strings.Repeat("lorem ipsum ", size/12)
	for _, c := range []struct{ name, path, body string }{
		{"openai/text", "/v1/chat/completions", `{"model":"default","messages":[{"role":"user","content":"` + txt + `"}]}`},
		{"openai/image", "/v1/chat/completions", `{"model":"default","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,` + img + `"}}]}]}`},
		{"anthropic/text", "/v1/messages", `{"model":"default","max_tokens":5,"messages":[{"role":"user","content":"` + txt + `"}]}`},
		{"anthropic/image", "/v1/messages", `{"model":"default","max_tokens":5,"messages":[{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + img + `"}}]}]}`},
		{"anthropic/tool_result", "/v1/messages", `{"model":"default","max_tokens":5,"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"read","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"` + txt + `"}]}]}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			h := New(&fakeBackend{events: okEvents}, withMaxBodyBytes(64<<20))
			body := []byte(c.body)
			b.ReportAllocs()
			b.SetBytes(int64(len(body)))
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			for b.Loop() {
				req := httptest.NewRequest(http.MethodPost, c.path, bytes.NewReader(body))
				h.ServeHTTP(&discardWriter{h: http.Header{}}, req)
			}
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/float64(len(body)), "alloc/body-byte")
		})
	}
}

// BenchmarkOverload fires bursts of 1024 concurrent whole requests over
// loopback at a backend that serves 8 at a time, 50ms each (a chain with
// little capacity), with the in-flight bound at 64 and, for comparison,
// with no effective bound. It reports per burst how many were admitted and
// refused, and the latency of the admitted ones as the server measured it
// (arrival to last byte, from the Observer) and as the client saw it (the
// client shares the two cores and its connections wait to be read). With
// the bound, the excess is refused at once and the admitted keep a short
// queue.
func BenchmarkOverload(b *testing.B) {
	const (
		burst    = 1024
		capacity = 8
		work     = 50 * time.Millisecond
	)
	for _, c := range []struct {
		name  string
		limit int
	}{{"bound=16", 16}, {"bound=64", 64}, {"unbounded", burst}} {
		b.Run(c.name, func(b *testing.B) {
			slots := make(chan struct{}, capacity)
			backend := &fakeBackend{gen: func(ctx context.Context, _ string, _ *sdk.Request, out sdk.Sink, commit func(Answer)) (*Answer, error) {
				select {
				case slots <- struct{}{}:
				case <-ctx.Done():
					return nil, ctx.Err()
				}
				time.Sleep(work) // the provider generating
				<-slots
				for _, ev := range okEvents {
					if err := out.Send(ctx, ev); err != nil {
						return nil, err
					}
				}
				return nil, nil
			}}
			var (
				mu              sync.Mutex
				server, client  []time.Duration // latencies of the admitted
				refused, failed int
			)
			obs := ObserverFunc(func(r Record) {
				if r.Status == http.StatusOK {
					mu.Lock()
					server = append(server, r.Latency)
					mu.Unlock()
				}
			})
			srv := newServer(b, backend, withMaxInFlight(c.limit, c.limit), WithObserver(obs), withClock(time.Now))
			hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: burst}, Timeout: time.Minute}
			defer hc.CloseIdleConnections()
			fire := func() {
				var wg sync.WaitGroup
				for range burst {
					wg.Go(func() {
						t0 := time.Now()
						resp, err := hc.Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(openaiAsk))
						if err != nil {
							mu.Lock()
							failed++
							mu.Unlock()
							return
						}
						_, _ = io.Copy(io.Discard, resp.Body)
						resp.Body.Close()
						d := time.Since(t0)
						mu.Lock()
						defer mu.Unlock()
						switch resp.StatusCode {
						case http.StatusOK:
							client = append(client, d)
						case http.StatusServiceUnavailable:
							refused++
						default:
							failed++
						}
					})
				}
				wg.Wait()
			}
			fire() // opens the connections: a dial storm is no part of the figures
			mu.Lock()
			server, client, refused = nil, nil, 0
			mu.Unlock()
			for b.Loop() {
				fire()
			}
			if failed > 0 {
				b.Errorf("%d requests failed otherwise", failed)
			}
			n := float64(b.N)
			b.ReportMetric(float64(len(client))/n, "admitted/burst")
			b.ReportMetric(float64(refused)/n, "refused/burst")
			b.ReportMetric(quantileMs(server, 0.5), "server-p50-ms")
			b.ReportMetric(quantileMs(server, 0.99), "server-p99-ms")
			b.ReportMetric(quantileMs(client, 0.5), "client-p50-ms")
			b.ReportMetric(quantileMs(client, 0.99), "client-p99-ms")
		})
	}
}

// quantileMs is the p-quantile of ds in milliseconds.
func quantileMs(ds []time.Duration, p float64) float64 {
	if len(ds) == 0 {
		return 0
	}
	ds = slices.Clone(ds)
	slices.Sort(ds)
	return float64(ds[int(p*float64(len(ds)-1))].Microseconds()) / 1000
}
