package wal

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		batches [][][]byte
	}{
		{"one record", [][][]byte{{[]byte(`{"type":"RunStarted"}`)}}},
		{"single records", [][][]byte{{[]byte("a")}, {[]byte("b")}, {[]byte("c")}}},
		{"batches", [][][]byte{{[]byte("a")}, {[]byte("b"), []byte("c"), []byte("d")}, {[]byte("e"), []byte("f")}}},
		{"empty payloads", [][][]byte{{{}}, {{}, []byte("x"), {}}}},
		{"binary payload", [][][]byte{{{0, 0, 0, 0, 0xff, 'A', 'X', 'O', 'N', 'W', 'A', 'L', 0}}}},
		{"large record", [][][]byte{{bytes.Repeat([]byte("0123456789"), 100_000)}, {[]byte("after")}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := mustOpen(t, filepath.Join(t.TempDir(), "wal"))
			defer mustClose(t, w)
			var want []rec
			for _, b := range tt.batches {
				first, err := w.Append(b...)
				if err != nil {
					t.Fatalf("Append: %v", err)
				}
				if wantFirst := uint64(len(want)) + 1; first != wantFirst {
					t.Errorf("Append returned first seq %d, want %d", first, wantFirst)
				}
				for i, p := range b {
					want = append(want, rec{first + uint64(i), string(p)})
				}
			}
			if got := w.LastSeq(); got != uint64(len(want)) {
				t.Errorf("LastSeq = %d, want %d", got, len(want))
			}
			if diff := cmp.Diff(want, replayAll(t, w, 0)); diff != "" {
				t.Errorf("Replay (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReopenContinuesSequence(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "wal")
	w := mustOpen(t, path)
	if w.LastSeq() != 0 {
		t.Fatalf("new log LastSeq = %d, want 0", w.LastSeq())
	}
	if _, err := w.Append(batchOf(1, 3)...); err != nil {
		t.Fatal(err)
	}
	lineage := w.Lineage()
	mustClose(t, w)

	w = mustOpen(t, path)
	defer mustClose(t, w)
	if w.Lineage() != lineage {
		t.Errorf("reopened lineage %s, want %s", w.Lineage(), lineage)
	}
	if w.Truncated() != 0 {
		t.Errorf("clean reopen truncated %d bytes", w.Truncated())
	}
	first, err := w.Append(batchOf(4, 2)...)
	if err != nil {
		t.Fatal(err)
	}
	if first != 4 {
		t.Errorf("first seq after reopen = %d, want 4", first)
	}
	if diff := cmp.Diff(expected(1, 5), replayAll(t, w, 1)); diff != "" {
		t.Errorf("Replay (-want +got):\n%s", diff)
	}
}

func TestLineageDiffersAfterRecreate(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "wal")
	w := mustOpen(t, path)
	if _, err := w.Append(batchOf(1, 1)...); err != nil {
		t.Fatal(err)
	}
	old := w.Lineage()
	mustClose(t, w)
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}

	w = mustOpen(t, path)
	defer mustClose(t, w)
	if w.Lineage() == old {
		t.Errorf("recreated log kept lineage %s", old)
	}
	if w.Lineage() == (LineageID{}) {
		t.Error("lineage is all zeros")
	}
	if w.LastSeq() != 0 {
		t.Errorf("recreated log LastSeq = %d, want 0", w.LastSeq())
	}
}

func TestReplayFrom(t *testing.T) {
	t.Parallel()
	w := mustOpen(t, filepath.Join(t.TempDir(), "wal"))
	defer mustClose(t, w)
	const n = 3*markEvery + 5
	for first := uint64(1); first <= n; {
		k := min(int(first%5)+1, int(n-first+1)) // batches of 1..5 records straddle the marks
		if _, err := w.Append(batchOf(first, k)...); err != nil {
			t.Fatal(err)
		}
		first += uint64(k)
	}
	for _, from := range []uint64{0, 1, 2, markEvery, markEvery + 1, markEvery + 2, 2*markEvery + 1, n - 1, n, n + 1, 1 << 40} {
		want := expected(max(from, 1), n)
		if diff := cmp.Diff(want, replayAll(t, w, from)); diff != "" {
			t.Errorf("Replay(%d) (-want +got):\n%s", from, diff)
		}
	}
}

func TestReplayStopsAtCallbackErrorAndAllowsAppend(t *testing.T) {
	t.Parallel()
	w := mustOpen(t, filepath.Join(t.TempDir(), "wal"))
	defer mustClose(t, w)
	if _, err := w.Append(batchOf(1, 4)...); err != nil {
		t.Fatal(err)
	}
	stop := errors.New("stop")
	var seen []uint64
	err := w.Replay(1, func(seq uint64, _ []byte) error {
		seen = append(seen, seq)
		if _, err := w.Append(payload(seq + 4)); err != nil { // appends are not replayed by this call
			return err
		}
		if seq == 3 {
			return stop
		}
		return nil
	})
	if err != stop {
		t.Errorf("Replay returned %v, want the callback's error unchanged", err)
	}
	if diff := cmp.Diff([]uint64{1, 2, 3}, seen); diff != "" {
		t.Errorf("seqs seen (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(expected(1, 7), replayAll(t, w, 0)); diff != "" {
		t.Errorf("log after appends from the callback (-want +got):\n%s", diff)
	}
}

func TestAppendRejectsWithoutDisabling(t *testing.T) {
	t.Parallel()
	big := make([]byte, 15<<20)
	tests := []struct {
		name    string
		records [][]byte
		want    error
	}{
		{"no records", nil, ErrEmptyBatch},
		{"record over limit", [][]byte{[]byte("ok"), make([]byte, MaxRecordSize+1)}, ErrTooLarge},
		{"batch over limit", [][]byte{big, big, big, big, big}, ErrTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := mustOpen(t, filepath.Join(t.TempDir(), "wal"))
			defer mustClose(t, w)
			if _, err := w.Append(tt.records...); !errors.Is(err, tt.want) {
				t.Fatalf("Append error = %v, want %v", err, tt.want)
			}
			first, err := w.Append(payload(1))
			if err != nil || first != 1 {
				t.Fatalf("Append after a rejected call = %d, %v; want 1, nil", first, err)
			}
		})
	}
}

func TestMaxRecordSizeRoundTrips(t *testing.T) {
	t.Parallel()
	w := mustOpen(t, filepath.Join(scratchDir(t), "wal"))
	p := bytes.Repeat([]byte{0x5a}, MaxRecordSize)
	if _, err := w.Append(p); err != nil {
		t.Fatal(err)
	}
	path := w.path
	mustClose(t, w)
	w = mustOpen(t, path)
	defer mustClose(t, w)
	var got []byte
	if err := w.Replay(1, func(_ uint64, b []byte) error { got = b; return nil }); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, p) {
		t.Errorf("replayed %d bytes, want the %d written", len(got), len(p))
	}
}

func TestClosed(t *testing.T) {
	t.Parallel()
	w := mustOpen(t, filepath.Join(t.TempDir(), "wal"))
	mustClose(t, w)
	if _, err := w.Append(payload(1)); !errors.Is(err, ErrClosed) {
		t.Errorf("Append after Close = %v, want ErrClosed", err)
	}
	if err := w.Replay(0, func(uint64, []byte) error { return nil }); !errors.Is(err, ErrClosed) {
		t.Errorf("Replay after Close = %v, want ErrClosed", err)
	}
	if err := w.Close(); !errors.Is(err, ErrClosed) {
		t.Errorf("second Close = %v, want ErrClosed", err)
	}
}

func TestCreateLeavesNoTempFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	w := mustOpen(t, filepath.Join(dir, "wal"))
	mustClose(t, w)
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if diff := cmp.Diff([]string{"wal", "wal.lock"}, names); diff != "" {
		t.Errorf("directory after create (-want +got):\n%s", diff)
	}
}

// TestConcurrentAppendAndReplay appends batches from several goroutines
// while another replays: every batch lands contiguously, seqs stay dense,
// and a Replay never sees a partial batch or a gap.
func TestConcurrentAppendAndReplay(t *testing.T) {
	t.Parallel()
	w := mustOpen(t, filepath.Join(scratchDir(t), "wal"))
	defer mustClose(t, w)
	const writers, batches, perBatch = 4, 30, 3
	var wg sync.WaitGroup
	firsts := make([][]uint64, writers)
	for g := range writers {
		wg.Go(func() {
			for b := range batches {
				recs := make([][]byte, perBatch)
				for i := range recs {
					recs[i] = fmt.Appendf(nil, "%d/%d/%d", g, b, i)
				}
				first, err := w.Append(recs...)
				if err != nil {
					t.Error(err)
					return
				}
				firsts[g] = append(firsts[g], first)
			}
		})
	}
	done := make(chan struct{})
	var replays int
	go func() {
		defer close(done)
		for w.LastSeq() < writers*batches*perBatch {
			want := uint64(1)
			if err := w.Replay(1, func(seq uint64, p []byte) error {
				if seq != want {
					return fmt.Errorf("replay saw seq %d, want %d", seq, want)
				}
				if _, _, i := bytesCut3(p); (seq-1)%perBatch != uint64(i) {
					return fmt.Errorf("seq %d holds %q: batch not contiguous", seq, p)
				}
				want++
				return nil
			}); err != nil {
				t.Error(err)
				return
			}
			replays++
		}
	}()
	wg.Wait()
	<-done
	got := map[uint64]string{}
	if err := w.Replay(0, func(seq uint64, p []byte) error { got[seq] = string(p); return nil }); err != nil {
		t.Fatal(err)
	}
	for g, fs := range firsts {
		for b, first := range fs {
			for i := range uint64(perBatch) {
				if want := fmt.Sprintf("%d/%d/%d", g, b, i); got[first+i] != want {
					t.Errorf("seq %d = %q, want %q", first+i, got[first+i], want)
				}
			}
		}
	}
	if len(got) != writers*batches*perBatch {
		t.Errorf("log holds %d records, want %d", len(got), writers*batches*perBatch)
	}
	t.Logf("%d concurrent replays", replays)
}

// bytesCut3 splits "g/b/i" into its three numbers.
func bytesCut3(p []byte) (g, b, i int) {
	fmt.Sscanf(string(p), "%d/%d/%d", &g, &b, &i)
	return g, b, i
}
