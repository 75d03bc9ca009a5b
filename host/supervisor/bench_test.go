package supervisor

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/axonhq/axon/host/egress"
	"github.com/axonhq/axon/sdk"
)

// reportLatency adds p50 and p99 of per-call durations to a benchmark.
func reportLatency(b *testing.B, d []time.Duration) {
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	b.ReportMetric(float64(d[len(d)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(d[len(d)*99/100].Microseconds()), "p99-µs")
}

// BenchmarkGenerateSubprocess: one minimal Generate (start, one delta,
// finish) through a real plugin subprocess, over AutoMTLS gRPC.
func BenchmarkGenerateSubprocess(b *testing.B) {
	s := New(nullLogger(), Options{})
	defer s.Close()
	s.Add(Spec{Name: "echo", Kind: sdk.KindProvider, Path: bin("echo")})
	in, _ := s.Instance("echo")
	ctx := context.Background()
	if err := in.Start(ctx); err != nil {
		b.Fatal(err)
	}
	d := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		if _, _, err := collect(ctx, in, "hi"); err != nil {
			b.Fatal(err)
		}
		d = append(d, time.Since(t0))
	}
	reportLatency(b, d)
}

// BenchmarkEgressRoundTrip: a Generate in which the plugin makes one GET
// through the host's egress to a loopback upstream. Subtract
// BenchmarkGenerateSubprocess for the egress share.
func BenchmarkEgressRoundTrip(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok") }))
	defer srv.Close()
	al, _ := egress.NewAllowList(srv.URL)
	s := New(nullLogger(), Options{})
	defer s.Close()
	s.Add(Spec{Name: "get", Kind: sdk.KindProvider, Path: bin("hostile"), Egress: &egress.Grant{Allow: al}})
	in, _ := s.Instance("get")
	ctx := context.Background()
	d := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		_, text, err := collect(ctx, in, "get "+srv.URL)
		if err != nil || !strings.HasPrefix(text, "status 200") {
			b.Fatalf("%q %v", text, err)
		}
		d = append(d, time.Since(t0))
	}
	reportLatency(b, d)
}

// BenchmarkPluginStart: one start of the echo plugin (process, handshake,
// Info, Configure) and its idle RSS once started, with the full sandbox and
// with sandbox = "none". Each iteration stops the process again.
func BenchmarkPluginStart(b *testing.B) {
	for _, sb := range []Sandbox{SandboxFull, SandboxNone} {
		b.Run(string(sb), func(b *testing.B) {
			s := New(nullLogger(), Options{})
			defer s.Close()
			s.Add(Spec{Name: "echo", Kind: sdk.KindProvider, Path: bin("echo"), Sandbox: sb})
			in, _ := s.Instance("echo")
			ctx := context.Background()
			d := make([]time.Duration, 0, b.N)
			var rss int64
			b.ResetTimer()
			for range b.N {
				t0 := time.Now()
				if err := in.Start(ctx); err != nil {
					b.Fatal(err)
				}
				d = append(d, time.Since(t0))
				b.StopTimer()
				rss += vmRSS(b, in.Pid())
				in.Stop()
				b.StartTimer()
			}
			reportLatency(b, d)
			b.ReportMetric(float64(rss)/float64(b.N)/1024, "idle-RSS-MiB")
		})
	}
}

// vmRSS reads a process's resident set in KiB.
func vmRSS(b *testing.B, pid int) int64 {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb
		}
	}
	b.Fatal("no VmRSS")
	return 0
}
