package wal

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// recoverySizes are the batch sizes of the log the byte-level recovery
// tests damage: single records and batches, ending with a batch.
var recoverySizes = []int{1, 2, 1, 3, 1, 2}

// checkRecovered asserts what Open must make of a damaged copy of a log
// whose last whole batch before the damage is want: it opens, keeps exactly
// the records of the batches before the damage, cuts the file there, and
// takes new appends that survive another reopen.
func checkRecovered(t *testing.T, path string, want boundary) {
	t.Helper()
	before := fileSize(t, path)
	w, err := Open(path)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	if got := w.LastSeq(); got != want.last {
		t.Errorf("LastSeq = %d, want %d", got, want.last)
	}
	if got := w.Truncated(); got != before-want.end {
		t.Errorf("Truncated = %d, want %d", got, before-want.end)
	}
	if got := fileSize(t, path); got != want.end {
		t.Errorf("file size after Open = %d, want %d", got, want.end)
	}
	if diff := cmp.Diff(expected(1, want.last), replayAll(t, w, 0)); diff != "" {
		t.Fatalf("recovered records (-want +got):\n%s", diff)
	}
	first, err := w.Append(batchOf(want.last+1, 2)...)
	if err != nil || first != want.last+1 {
		t.Fatalf("Append after recovery = %d, %v; want %d, nil", first, err, want.last+1)
	}
	mustClose(t, w)
	w = mustOpen(t, path)
	defer mustClose(t, w)
	if w.Truncated() != 0 {
		t.Errorf("second Open truncated %d bytes, want 0", w.Truncated())
	}
	if diff := cmp.Diff(expected(1, want.last+2), replayAll(t, w, 0)); diff != "" {
		t.Errorf("records after append and reopen (-want +got):\n%s", diff)
	}
}

// checkCorrupt asserts that Open refuses path with a *CorruptError at
// offset and leaves the file as it was.
func checkCorrupt(t *testing.T, path string, offset int64) {
	t.Helper()
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := Open(path)
	if err == nil {
		w.Close()
		t.Fatalf("Open succeeded, want ErrCorrupt")
	}
	ce, ok := errors.AsType[*CorruptError](err)
	if !ok || !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Open error = %v, want a *CorruptError", err)
	}
	if ce.Offset != offset || ce.Path != path {
		t.Errorf("CorruptError at %s:%d, want %s:%d (%v)", ce.Path, ce.Offset, path, offset, err)
	}
	after, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Errorf("Open changed a corrupt file (%d bytes before, %d after)", len(before), len(after))
	}
}

func TestTornTailAtEveryOffset(t *testing.T) {
	t.Parallel()
	dir := scratchDir(t)
	ref, bounds := buildLog(t, filepath.Join(dir, "ref"), recoverySizes)
	for cut := int64(headerSize); cut <= int64(len(ref)); cut++ {
		path := writeFile(t, dir, ref[:cut])
		t.Run("", func(t *testing.T) { checkRecovered(t, path, lastBoundaryWithin(bounds, cut)) })
		if t.Failed() {
			t.Fatalf("cut at %d of %d", cut, len(ref))
		}
	}
}

// TestGarbageTailAtEveryOffset models a file whose size grew but whose last
// data never reached the disk: from the cut to the old end, zeros or noise.
func TestGarbageTailAtEveryOffset(t *testing.T) {
	t.Parallel()
	dir := scratchDir(t)
	ref, bounds := buildLog(t, filepath.Join(dir, "ref"), recoverySizes)
	rng := rand.New(rand.NewPCG(5, 6))
	fills := map[string]func([]byte){
		"zeros": func(b []byte) { clear(b) },
		"noise": func(b []byte) {
			for i := range b {
				b[i] = byte(rng.Uint32())
			}
		},
	}
	for name, fill := range fills {
		for cut := int64(headerSize); cut < int64(len(ref)); cut++ {
			b := bytes.Clone(ref)
			fill(b[cut:])
			path := writeFile(t, dir, b)
			t.Run(name, func(t *testing.T) { checkRecovered(t, path, lastBoundaryWithin(bounds, cut)) })
			if t.Failed() {
				t.Fatalf("%s from %d of %d", name, cut, len(ref))
			}
		}
	}
}

// TestBitFlipAtEveryByte flips one bit of every byte in turn. Damage in the
// header or in any batch before the last is corruption (later synced batches
// prove it); damage in the last batch looks like a torn write and is cut.
func TestBitFlipAtEveryByte(t *testing.T) {
	t.Parallel()
	dir := scratchDir(t)
	ref, bounds := buildLog(t, filepath.Join(dir, "ref"), recoverySizes)
	lastBatch := bounds[len(bounds)-2]
	var corrupt, torn int
	for i := range int64(len(ref)) {
		b := bytes.Clone(ref)
		b[i] ^= 1 << (i % 8)
		path := writeFile(t, dir, b)
		batch := lastBoundaryWithin(bounds, i) // the batch holding byte i starts here
		switch {
		case i < headerSize:
			corrupt++
			t.Run("header", func(t *testing.T) { checkCorrupt(t, path, 0) })
		case batch.end < lastBatch.end:
			corrupt++
			t.Run("synced batch", func(t *testing.T) { checkCorrupt(t, path, batch.end) })
		default:
			torn++
			t.Run("last batch", func(t *testing.T) { checkRecovered(t, path, lastBatch) })
		}
		if t.Failed() {
			t.Fatalf("bit flip in byte %d of %d", i, len(ref))
		}
	}
	t.Logf("%d flips refused as corrupt, %d cut as torn", corrupt, torn)
}

func TestRecoveryCases(t *testing.T) {
	t.Parallel()
	dir := scratchDir(t)
	ref, bounds := buildLog(t, filepath.Join(dir, "ref"), []int{1, 1, 1, 1, 1})
	mid := bounds[2] // record 3 of 5 starts at mid.end
	other, _ := buildLog(t, filepath.Join(dir, "other"), []int{1, 1, 1, 1, 1, 1, 1, 1})

	tests := []struct {
		name    string
		damage  func() []byte
		corrupt int64    // offset of the expected CorruptError, or -1
		keep    boundary // what recovery keeps when not corrupt
	}{
		{
			name: "bit flip in the middle record with valid records after",
			damage: func() []byte {
				b := bytes.Clone(ref)
				b[mid.end+frameHeaderSize+3] ^= 0x10
				return b
			},
			corrupt: mid.end,
		},
		{
			name: "zeroed header of the middle record",
			damage: func() []byte {
				b := bytes.Clone(ref)
				clear(b[mid.end : mid.end+frameHeaderSize])
				return b
			},
			corrupt: mid.end,
		},
		{
			name: "middle record missing",
			damage: func() []byte {
				return append(bytes.Clone(ref[:mid.end]), ref[bounds[3].end:]...)
			},
			corrupt: mid.end,
		},
		{
			name: "bit flip in the last record",
			damage: func() []byte {
				b := bytes.Clone(ref)
				b[len(b)-1] ^= 0x01
				return b
			},
			corrupt: -1,
			keep:    bounds[4],
		},
		{
			name: "frames of another lineage after the end",
			damage: func() []byte {
				return append(bytes.Clone(ref), other[bounds[5].end:]...)
			},
			corrupt: -1,
			keep:    bounds[5],
		},
		{
			name: "torn last record whose payload quotes the log itself",
			damage: func() []byte {
				quote := appendFrame(nil, lineageOf(t, ref).seed(), frameHeader{seq: 6, count: 1}, ref)
				return append(bytes.Clone(ref), quote[:len(quote)-1]...)
			},
			corrupt: -1,
			keep:    bounds[5],
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sub := t.TempDir()
			path := writeFile(t, sub, tt.damage())
			if tt.corrupt >= 0 {
				checkCorrupt(t, path, tt.corrupt)
				return
			}
			checkRecovered(t, path, tt.keep)
		})
	}
}

// TestForgedLaterFrameFailsClosed pins down the one way a payload can make
// Open refuse: a torn record whose payload holds a frame of this lineage
// with a later sequence number than any written. Open cannot tell it from
// a synced later batch, so it refuses instead of dropping data.
func TestForgedLaterFrameFailsClosed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ref, bounds := buildLog(t, filepath.Join(dir, "ref"), []int{1, 1})
	seed := lineageOf(t, ref).seed()
	forged := appendFrame(nil, seed, frameHeader{seq: 9, count: 1}, []byte("forged"))
	torn := appendFrame(nil, seed, frameHeader{seq: 3, count: 1}, append(append([]byte("prefix "), forged...), " suffix"...))
	path := writeFile(t, dir, append(bytes.Clone(ref), torn[:len(torn)-1]...))
	checkCorrupt(t, path, bounds[2].end)
}

func TestHeaderDamage(t *testing.T) {
	t.Parallel()
	valid := encodeHeader(LineageID{1, 2, 3})
	future := bytes.Clone(valid)
	future[8] = formatVersion + 1
	refreshHeaderCRC(future)
	tests := []struct {
		name string
		file []byte
		want error
	}{
		{"empty file", nil, ErrCorrupt},
		{"short header", valid[:headerSize-1], ErrCorrupt},
		{"bad magic", append([]byte("NOTAWAL!"), valid[8:]...), ErrCorrupt},
		{"checksum mismatch", append(bytes.Clone(valid[:20]), append([]byte{0xee}, valid[21:]...)...), ErrCorrupt},
		{"newer version", future, ErrVersion},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := writeFile(t, t.TempDir(), tt.file)
			w, err := Open(path)
			if err == nil {
				w.Close()
			}
			if !errors.Is(err, tt.want) {
				t.Fatalf("Open = %v, want %v", err, tt.want)
			}
			after, rerr := os.ReadFile(path)
			if rerr != nil || !bytes.Equal(after, tt.file) {
				t.Errorf("Open changed the file (%v)", rerr)
			}
		})
	}
}

func lineageOf(t *testing.T, log []byte) LineageID {
	t.Helper()
	l, err := decodeHeader(log)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func refreshHeaderCRC(h []byte) {
	binary.LittleEndian.PutUint32(h[28:], crc32.Checksum(h[:28], castagnoli))
}
