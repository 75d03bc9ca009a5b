package sdktest

import (
	"io"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
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

func TestRecordedBodies(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "two.sse"), []byte("data: a\n\n: ping\n\nevent: x\ndata: b\r\n\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := RecordedBodies(t, dir, []string{"missing.sse", "two.sse"}, CountSSEEvents)
	want := []BenchBody{{Name: "recorded-two.sse", Body: []byte("data: a\n\n: ping\n\nevent: x\ndata: b\r\n\r\n"), Units: 2}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if n := CountLines(t, []byte("{}\n{}\n{")); n != 2 {
		t.Errorf("CountLines %d, want 2", n)
	}
	if errs := failures(t, func(tb testing.TB) { CountSSEEvents(tb, []byte("data: cut")) }); len(errs) != 1 {
		t.Errorf("a cut stream: failures %q, want one", errs)
	}
}

func TestBenchDecode(t *testing.T) {
	t.Parallel()
	bodies := []BenchBody{{Name: "a", Body: []byte("0123456789"), Units: 10}}
	var read []string
	res := testing.Benchmark(func(b *testing.B) {
		BenchDecode(b, bodies, "byte", func(r io.Reader) error {
			p, err := io.ReadAll(r)
			if len(read) == 0 {
				read = append(read, string(p))
			}
			return err
		})
	})
	if diff := cmp.Diff([]string{"0123456789"}, read); diff != "" {
		t.Errorf("decoded (-want +got):\n%s", diff)
	}
	if res.N == 0 {
		t.Error("the benchmark did not run")
	}
}
