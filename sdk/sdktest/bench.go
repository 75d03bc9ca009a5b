package sdktest

import (
	"runtime"
	"testing"
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
