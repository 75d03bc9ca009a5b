package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/axonhq/axon/sdk"
)

// benchStream is a recorded stream: every event a text or reasoning delta,
// the commonest shape on the wire.
const benchStream = "deepseek/chat-reasoning-stream.sse"

// BenchmarkSSEDecoder measures the SSE framing alone: bytes in, events out.
func BenchmarkSSEDecoder(b *testing.B) {
	body := readFixtureB(b, benchStream)
	events := countEvents(b, body)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	r := bytes.NewReader(body)
	mallocs := mallocsDuring(b, func() {
		for b.Loop() {
			r.Reset(body)
			sr := newEventReader(r)
			for {
				if _, err := sr.Next(); err != nil {
					if !errors.Is(err, io.EOF) {
						b.Fatal(err)
					}
					break
				}
			}
		}
	})
	b.ReportMetric(float64(mallocs)/float64(b.N*events), "allocs/event")
}

// BenchmarkDecodeStream measures the whole path a streamed reply takes:
// SSE framing, chunk or event JSON, assembly and events into a sink, for
// both wire families.
func BenchmarkDecodeStream(b *testing.B) {
	for _, c := range []struct{ name, api string }{
		{benchStream, apiChat},
		{"openai/chat-parallel-tool-calls-stream-2.sse", apiChat},
		{"openai/responses-reasoning-summary-function-call-stream.sse", apiResponses},
	} {
		name, decode := c.name, wireFor(c.api).decodeStream
		b.Run(name, func(b *testing.B) {
			body := readFixtureB(b, name)
			events := countEvents(b, body)
			sink := sdk.SinkFunc(func(context.Context, sdk.Event) error { return nil })
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			r := bytes.NewReader(body)
			mallocs := mallocsDuring(b, func() {
				for b.Loop() {
					r.Reset(body)
					if err := decode(context.Background(), r, newTurn(sink, "m", nil)); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.ReportMetric(float64(mallocs)/float64(b.N*events), "allocs/event")
		})
	}
}

func readFixtureB(b *testing.B, rel string) []byte {
	b.Helper()
	body, err := os.ReadFile(filepath.Join(sharedFixtures, rel))
	if err != nil {
		b.Fatal(err)
	}
	return body
}

func countEvents(b *testing.B, body []byte) int {
	b.Helper()
	sr := newEventReader(bytes.NewReader(body))
	n := 0
	for {
		if _, err := sr.Next(); err != nil {
			if !errors.Is(err, io.EOF) {
				b.Fatal(err)
			}
			return n
		}
		n++
	}
}

// mallocsDuring counts heap allocations made by f.
func mallocsDuring(b *testing.B, f func()) uint64 {
	b.Helper()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.Mallocs - before.Mallocs
}
