package sdktest

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/axonhq/axon/sdk/sse"
)

// ReportAllocsPer runs run in b.Loop and reports the heap allocations per
// unit of work, measured over the whole run, as the metric "allocs/<unit>":
// each run handles n units (events, lines). A decoder that allocates only
// to grow its buffers reports close to zero.
func ReportAllocsPer(b *testing.B, n int, unit string, run func()) {
	b.Helper()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for b.Loop() {
		run()
	}
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(b.N*n), "allocs/"+unit)
}

// BenchBody is a response body a decoding benchmark reads, and how many
// units (events, lines) it holds.
type BenchBody struct {
	Name  string
	Body  []byte
	Units int
}

// BenchDecode runs one sub-benchmark per body, named for it: decode reads
// the whole body from r (reset before every run) and must succeed. It
// reports bytes per second, allocations per run and "allocs/<unit>" (see
// ReportAllocsPer).
func BenchDecode(b *testing.B, bodies []BenchBody, unit string, decode func(r io.Reader) error) {
	b.Helper()
	for _, bb := range bodies {
		b.Run(bb.Name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(bb.Body)))
			rd := bytes.NewReader(bb.Body)
			ReportAllocsPer(b, bb.Units, unit, func() {
				rd.Reset(bb.Body)
				if err := decode(rd); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}

// RecordedBodies reads the named bodies under dir as "recorded-<name>",
// counting the units of each with count (CountSSEEvents, CountLines). A
// body that does not exist is left out, since a shared fixture set is
// optional; any other read error fails.
func RecordedBodies(tb testing.TB, dir string, names []string, count func(testing.TB, []byte) int) []BenchBody {
	tb.Helper()
	var bodies []BenchBody
	for _, name := range names {
		body, err := os.ReadFile(filepath.Join(dir, name))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			tb.Fatal(err)
		}
		bodies = append(bodies, BenchBody{Name: "recorded-" + name, Body: body, Units: count(tb, body)})
	}
	return bodies
}

// CountSSEEvents returns the number of server-sent events in body, which
// must be a well-formed event stream.
func CountSSEEvents(tb testing.TB, body []byte) int {
	tb.Helper()
	r := sse.NewReader(bytes.NewReader(body))
	n := 0
	for {
		if _, err := r.Next(); err != nil {
			if !errors.Is(err, io.EOF) {
				tb.Fatalf("count events: %v", err)
			}
			return n
		}
		n++
	}
}

// CountLines returns the number of LF-terminated lines in body.
func CountLines(_ testing.TB, body []byte) int {
	return bytes.Count(body, []byte("\n"))
}
