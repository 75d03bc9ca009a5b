package sse

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// benchStream is a body of n events shaped like a provider's token stream
// (an event name, a padded JSON delta, a comment every 50 events), with
// the given line end.
func benchStream(n int, eol string) []byte {
	var b bytes.Buffer
	for i := range n {
		if i%50 == 0 {
			b.WriteString(": ping" + eol)
		}
		fmt.Fprintf(&b, `event: content_block_delta%sdata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" could also say \"Oi!\" %d"}}           %s%s`, eol, i, eol, eol)
	}
	return b.Bytes()
}

// BenchmarkReader measures framing alone, bytes to events, and reports
// allocations per event over the whole run (zero once buffers have grown).
func BenchmarkReader(b *testing.B) {
	const events = 2000
	for _, eol := range []string{"\n", "\r\n", "\r"} {
		body := benchStream(events, eol)
		b.Run(fmt.Sprintf("eol=%q", eol), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(body)))
			rd := bytes.NewReader(body)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			for b.Loop() {
				rd.Reset(body)
				r := NewReader(rd)
				n := 0
				for ; ; n++ {
					if _, err := r.Next(); err != nil {
						break
					}
				}
				if n != events {
					b.Fatalf("%d events, want %d", n, events)
				}
			}
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(b.N*events), "allocs/event")
		})
	}
	long := []byte("data: " + strings.Repeat("x", 4*bufferSize) + "\n\n")
	b.Run("long-lines", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(long)))
		rd := bytes.NewReader(long)
		for b.Loop() {
			rd.Reset(long)
			if _, err := NewReader(rd).Next(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
