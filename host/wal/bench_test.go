package wal

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// BenchmarkAppend measures durable appends of 200-byte records on the disk
// under the test temp directory (set TMPDIR to choose it), one and eight
// records per call. It reports records/s, fdatasync calls per Append
// (counted at the file), and the p50/p99 latency of one Append.
func BenchmarkAppend(b *testing.B) {
	for _, size := range []int{200, 4096} {
		for _, n := range []int{1, 8} {
			b.Run(fmt.Sprintf("bytes=%d/records=%d", size, n), func(b *testing.B) {
				var ff *faultFile
				w, err := open(filepath.Join(b.TempDir(), "wal"), func(f file) file { ff = &faultFile{file: f}; return ff })
				if err != nil {
					b.Fatal(err)
				}
				defer w.Close()
				recs := make([][]byte, n)
				for i := range recs {
					recs[i] = bytes.Repeat([]byte{'x'}, size)
				}
				syncs := ff.syncs
				var lat []time.Duration
				for b.Loop() {
					start := time.Now()
					if _, err := w.Append(recs...); err != nil {
						b.Fatal(err)
					}
					lat = append(lat, time.Since(start))
				}
				slices.Sort(lat)
				b.ReportMetric(float64(len(lat)*n)/b.Elapsed().Seconds(), "records/s")
				b.ReportMetric(float64(ff.syncs-syncs)/float64(len(lat)), "fdatasync/op")
				b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
				b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
			})
		}
	}
}

// BenchmarkOpen measures recovery of a clean log of 10,000 records of 200
// bytes: the scan, one fdatasync and one directory fsync.
func BenchmarkOpen(b *testing.B) {
	path := filepath.Join(b.TempDir(), "wal")
	w, err := Open(path)
	if err != nil {
		b.Fatal(err)
	}
	rec := bytes.Repeat([]byte{'x'}, 200)
	batch := make([][]byte, 100)
	for i := range batch {
		batch[i] = rec
	}
	for range 100 {
		if _, err := w.Append(batch...); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		w, err := Open(path)
		if err != nil {
			b.Fatal(err)
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
	}
}
