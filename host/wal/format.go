package wal

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash/crc32"
)

// On-disk layout, all integers little-endian (README.md has the diagram).
//
//	header (32 B): magic [8] | version u32 | lineage [16] | crc32c(bytes 0..28) u32
//	frame  (28 B + payload):
//	   hcrc u32   crc32c(seed, bytes 4..28 of the frame header)
//	   len  u32   payload length
//	   seq  u64   wal_seq, dense from 1
//	   idx  u32   position of the frame in its batch, from 0
//	   cnt  u32   number of frames in the batch
//	   pcrc u32   crc32c(seed, payload)
//	   payload [len]
//
// seed is crc32c(lineage), so frames of another lineage never validate.
// The header checksum (hcrc, which covers pcrc) lets recovery test any byte
// offset for a frame in constant time before reading a payload.
const (
	headerSize      = 32
	frameHeaderSize = 28
	formatVersion   = 1

	// MaxRecordSize is the largest payload Append accepts. Large tool
	// outputs belong in separate content-addressed files, referred to by a
	// record.
	MaxRecordSize = 16 << 20

	// MaxBatchSize bounds the encoded size (frame headers included) of the
	// records of one Append, which go out in a single write.
	MaxBatchSize = 64 << 20
)

var magic = [8]byte{'A', 'X', 'O', 'N', 'W', 'A', 'L', 0}

// castagnoli is the CRC32C table; computed once and never written.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// LineageID identifies one incarnation of a log. It is drawn at random when
// the file is created and never changes, so a consumer holding a watermark
// (lineage, seq) can tell a continued log from a recreated one.
type LineageID [16]byte

func (l LineageID) String() string { return hex.EncodeToString(l[:]) }

func newLineage() (LineageID, error) {
	var l LineageID
	if _, err := rand.Read(l[:]); err != nil {
		return l, fmt.Errorf("wal: lineage id: %w", err)
	}
	return l, nil
}

// seed is the initial CRC value of every frame checksum in a lineage.
func (l LineageID) seed() uint32 { return crc32.Checksum(l[:], castagnoli) }

func encodeHeader(l LineageID) []byte {
	b := make([]byte, headerSize)
	copy(b, magic[:])
	binary.LittleEndian.PutUint32(b[8:], formatVersion)
	copy(b[12:28], l[:])
	binary.LittleEndian.PutUint32(b[28:], crc32.Checksum(b[:28], castagnoli))
	return b
}

// decodeHeader checks b, the first headerSize bytes of a log (fewer when the
// file is shorter). The Reason of a returned CorruptError is filled in; the
// caller sets Path.
func decodeHeader(b []byte) (LineageID, error) {
	var l LineageID
	switch {
	case len(b) < headerSize:
		return l, &CorruptError{Reason: fmt.Sprintf("file of %d bytes is shorter than the header", len(b))}
	case [8]byte(b[:8]) != magic:
		return l, &CorruptError{Reason: "bad magic: not a WAL file"}
	case binary.LittleEndian.Uint32(b[28:]) != crc32.Checksum(b[:28], castagnoli):
		return l, &CorruptError{Reason: "header checksum mismatch"}
	}
	if v := binary.LittleEndian.Uint32(b[8:]); v != formatVersion {
		return l, fmt.Errorf("%w: %d (this build reads %d)", ErrVersion, v, formatVersion)
	}
	copy(l[:], b[12:28])
	return l, nil
}

type frameHeader struct {
	length     uint32
	seq        uint64
	index      uint32
	count      uint32
	payloadCRC uint32
}

// batchStart is the sequence number of the first frame of this frame's batch.
func (h frameHeader) batchStart() uint64 { return h.seq - uint64(h.index) }

// last reports whether the frame closes its batch.
func (h frameHeader) last() bool { return h.index+1 == h.count }

func (h frameHeader) size() int64 { return frameHeaderSize + int64(h.length) }

// appendFrame appends one encoded frame to dst.
func appendFrame(dst []byte, seed uint32, h frameHeader, payload []byte) []byte {
	h.length = uint32(len(payload))
	h.payloadCRC = crc32.Update(seed, castagnoli, payload)
	start := len(dst)
	dst = binary.LittleEndian.AppendUint32(dst, 0) // hcrc, filled below
	dst = binary.LittleEndian.AppendUint32(dst, h.length)
	dst = binary.LittleEndian.AppendUint64(dst, h.seq)
	dst = binary.LittleEndian.AppendUint32(dst, h.index)
	dst = binary.LittleEndian.AppendUint32(dst, h.count)
	dst = binary.LittleEndian.AppendUint32(dst, h.payloadCRC)
	binary.LittleEndian.PutUint32(dst[start:], crc32.Update(seed, castagnoli, dst[start+4:]))
	return append(dst, payload...)
}

// decodeFrameHeader reports whether b starts with a frame header that is
// intact and self-consistent in the lineage of seed. The payload is not
// checked.
func decodeFrameHeader(b []byte, seed uint32) (frameHeader, bool) {
	if len(b) < frameHeaderSize || binary.LittleEndian.Uint32(b) != crc32.Update(seed, castagnoli, b[4:frameHeaderSize]) {
		return frameHeader{}, false
	}
	h := frameHeader{
		length:     binary.LittleEndian.Uint32(b[4:]),
		seq:        binary.LittleEndian.Uint64(b[8:]),
		index:      binary.LittleEndian.Uint32(b[16:]),
		count:      binary.LittleEndian.Uint32(b[20:]),
		payloadCRC: binary.LittleEndian.Uint32(b[24:]),
	}
	ok := h.length <= MaxRecordSize && h.index < h.count && h.seq > uint64(h.index)
	return h, ok
}
