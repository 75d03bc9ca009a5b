package sdktest

import (
	"math"
	"testing"
)

func TestReportAllocsPer(t *testing.T) {
	t.Parallel()
	var keep [][]byte
	res := testing.Benchmark(func(b *testing.B) {
		ReportAllocsPer(b, 4, "event", func() {
			keep = append(keep[:0], make([]byte, 64)) // one allocation per run (keep is grown once)
		})
	})
	got, ok := res.Extra["allocs/event"]
	if !ok {
		t.Fatalf("no allocs/event metric in %v", res.Extra)
	}
	if math.Abs(got-0.25) > 0.05 {
		t.Errorf("allocs/event %.3f, want about 0.25 (one allocation per run of 4 events)", got)
	}
}
