package session

import (
	"encoding/binary"
	"os"
	"testing"
)

// frameInfo is one frame of a WAL file, read by the byte layout the
// host/wal README documents: a 32-byte header, then frames of
// hcrc u32 | len u32 | seq u64 | idx u32 | cnt u32 | pcrc u32 | payload.
type frameInfo struct {
	seq          uint64
	index, count uint32
	payload      []byte
}

func readFrames(t *testing.T, path string) []frameInfo {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []frameInfo
	for off := 32; off+28 <= len(b); {
		n := int(binary.LittleEndian.Uint32(b[off+4:]))
		f := frameInfo{
			seq: binary.LittleEndian.Uint64(b[off+8:]), index: binary.LittleEndian.Uint32(b[off+16:]),
			count: binary.LittleEndian.Uint32(b[off+20:]), payload: b[off+28 : off+28+n],
		}
		out = append(out, f)
		off += 28 + n
	}
	return out
}
