package wal

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestVerify(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ref, bounds := buildLog(t, filepath.Join(dir, "ref"), []int{1, 2, 1})
	l := lineageOf(t, ref)
	size := int64(len(ref))
	flipped := bytes.Clone(ref)
	flipped[bounds[1].end+frameHeaderSize] ^= 0x80

	tests := []struct {
		name    string
		file    []byte
		want    Report
		corrupt bool
	}{
		{"clean", ref, Report{Lineage: l, LastSeq: 4, Size: size, End: size}, false},
		{"torn tail", ref[:size-3], Report{Lineage: l, LastSeq: 3, Size: size - 3, End: bounds[2].end}, false},
		{"corrupt", flipped, Report{Lineage: l, LastSeq: 1, Size: size, End: bounds[1].end}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := writeFile(t, t.TempDir(), tt.file)
			got, err := Verify(path)
			if errors.Is(err, ErrCorrupt) != tt.corrupt || (err != nil && !tt.corrupt) {
				t.Fatalf("Verify error = %v, want corrupt=%v", err, tt.corrupt)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Report (-want +got):\n%s", diff)
			}
			after, err := os.ReadFile(path)
			if err != nil || !bytes.Equal(after, tt.file) {
				t.Errorf("Verify changed the file (%v)", err)
			}
		})
	}
}

func TestVerifyDoesNotNeedTheLease(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "wal")
	w := mustOpen(t, path)
	defer mustClose(t, w)
	if _, err := w.Append(batchOf(1, 3)...); err != nil {
		t.Fatal(err)
	}
	rep, err := Verify(path)
	if err != nil {
		t.Fatalf("Verify while a writer holds the log: %v", err)
	}
	if rep.LastSeq != 3 || rep.Lineage != w.Lineage() {
		t.Errorf("Verify = %+v, want LastSeq 3 and lineage %s", rep, w.Lineage())
	}
}
