package daemon

import (
	"bufio"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// The front door benchmarks compare one request sent to a loopback mock
// upstream three ways, in one run: directly, through a plain Go reverse
// proxy, and through axon (front door, chain, provider plugin subprocess,
// egress). Each reports p50/p99 latency and, in parallel, requests/s;
// the streaming variants also report time to first byte.

const benchPrompt = `{"model":"%s","stream":%v,"messages":[{"role":"user","content":"Say hello."}]}`

func benchUpstream(b *testing.B) *httptest.Server {
	words := []string{"hello", "from", "the", "mock", "upstream"}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		openaiText("gpt-bench", words...)(w, r)
	}))
	b.Cleanup(srv.Close)
	return srv
}

type target struct {
	url   string // full chat completions URL
	model string
}

func benchTargets(b *testing.B) map[string]target {
	up := benchUpstream(b)
	u, _ := url.Parse(up.URL)
	proxy := httptest.NewServer(httputil.NewSingleHostReverseProxy(u))
	b.Cleanup(proxy.Close)
	r := newRig(b, `
provider "mock" {
  plugin   = "openai"
  base_url = "`+up.URL+`/v1"
  model    = "gpt-bench"
}
chain "default" { providers = [provider.mock] }
`, Options{})
	return map[string]target{
		"direct": {up.URL + "/v1/chat/completions", "gpt-bench"},
		"proxy":  {proxy.URL + "/v1/chat/completions", "gpt-bench"},
		"axon":   {r.door.URL + "/v1/chat/completions", "default"},
	}
}

// call sends one request; it returns the time to the first body byte and
// the total time.
func call(client *http.Client, t target, stream bool) (ttfb, total time.Duration, err error) {
	start := time.Now()
	body := strings.NewReader(strings.Replace(strings.Replace(benchPrompt, "%s", t.model, 1), "%v", boolStr(stream), 1))
	resp, err := client.Post(t.url, "application/json", body)
	if err != nil {
		return 0, 0, err
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	if _, err := br.ReadByte(); err != nil {
		return 0, 0, err
	}
	ttfb = time.Since(start)
	io.Copy(io.Discard, br)
	return ttfb, time.Since(start), nil
}

func boolStr(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

func percentile(d []time.Duration, p int) time.Duration {
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	return d[min(len(d)-1, len(d)*p/100)]
}

func BenchmarkFrontDoor(b *testing.B) {
	targets := benchTargets(b)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	for _, stream := range []bool{false, true} {
		for _, name := range []string{"direct", "proxy", "axon"} {
			t := targets[name]
			mode := map[bool]string{false: "json", true: "stream"}[stream]
			b.Run(mode+"/"+name+"/latency", func(b *testing.B) {
				lat := make([]time.Duration, 0, b.N)
				first := make([]time.Duration, 0, b.N)
				for range b.N {
					ttfb, total, err := call(client, t, stream)
					if err != nil {
						b.Fatal(err)
					}
					lat, first = append(lat, total), append(first, ttfb)
				}
				b.ReportMetric(float64(percentile(lat, 50).Microseconds()), "p50-µs")
				b.ReportMetric(float64(percentile(lat, 99).Microseconds()), "p99-µs")
				if stream {
					b.ReportMetric(float64(percentile(first, 50).Microseconds()), "ttfb-p50-µs")
				}
			})
			b.Run(mode+"/"+name+"/throughput", func(b *testing.B) {
				var mu sync.Mutex
				var failed error
				start := time.Now()
				b.SetParallelism(8)
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						if _, _, err := call(client, t, stream); err != nil {
							mu.Lock()
							failed = err
							mu.Unlock()
						}
					}
				})
				if failed != nil {
					b.Fatal(failed)
				}
				b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "req/s")
			})
		}
	}
}
