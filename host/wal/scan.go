package wal

import (
	"bufio"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
)

// markEvery is the spacing, in records, of the offsets kept in memory so
// that Replay from a sequence number does not read the log from the start.
const markEvery = 64

// readBufSize is the read-ahead used when walking frames.
const readBufSize = 64 << 10

// committed describes the whole-batch prefix of a log found by scanPrefix.
type committed struct {
	end   int64   // offset just past the last whole batch
	last  uint64  // sequence number of its last record; 0 for an empty log
	marks []int64 // marks[k] is the offset of the frame with seq k*markEvery+1
}

// scanPrefix walks the frames after the header while each is whole, valid
// and in place: expected sequence number, expected position in its batch,
// same batch size as its batch's first frame. It stops at the first frame
// that is not, and reports the prefix up to the end of the last whole batch.
// Only read errors are returned.
func scanPrefix(r io.ReaderAt, size int64, seed uint32) (committed, error) {
	c := committed{end: headerSize}
	off := int64(headerSize)
	br := bufio.NewReaderSize(io.NewSectionReader(r, off, size-off), readBufSize)
	var (
		hdr     [frameHeaderSize]byte
		scratch = make([]byte, readBufSize)
		next    = uint64(1)
		index   uint32 // position expected for the next frame in its batch
		count   uint32 // size of the batch being read; 0 at a batch boundary
		pending []int64
	)
	for size-off >= frameHeaderSize {
		if _, err := io.ReadFull(br, hdr[:]); err != nil {
			return c, fmt.Errorf("wal: read frame header at %d: %w", off, err)
		}
		h, ok := decodeFrameHeader(hdr[:], seed)
		if !ok || h.seq != next || h.index != index || (count != 0 && h.count != count) || h.size() > size-off {
			break
		}
		sum, err := payloadCRC(br, h.length, seed, scratch)
		if err != nil {
			return c, fmt.Errorf("wal: read payload at %d: %w", off+frameHeaderSize, err)
		}
		if sum != h.payloadCRC {
			break
		}
		if (h.seq-1)%markEvery == 0 {
			pending = append(pending, off)
		}
		off += h.size()
		next++
		if h.last() {
			c.end, c.last = off, h.seq
			c.marks = append(c.marks, pending...)
			pending = pending[:0]
			index, count = 0, 0
		} else {
			index, count = h.index+1, h.count
		}
	}
	return c, nil
}

// findLaterBatch looks at every byte offset in [from, size) for a whole,
// valid frame whose batch starts after sequence number next, the first
// number of the batch that failed to validate at from. It returns the offset
// of the first such frame, or -1. Frames of the damaged batch itself (batch
// start == next) and copies of older frames (batch start < next), which a
// payload may contain, are not evidence of a later write.
func findLaterBatch(r io.ReaderAt, from, size int64, next uint64, seed uint32) (int64, error) {
	const window = readBufSize
	buf := make([]byte, window+frameHeaderSize-1)
	scratch := make([]byte, readBufSize)
	for base := from; size-base >= frameHeaderSize; base += window {
		n := int(min(int64(len(buf)), size-base))
		if k, err := r.ReadAt(buf[:n], base); k < n {
			return -1, fmt.Errorf("wal: read at %d: %w", base, err)
		}
		for i := 0; i < window && i+frameHeaderSize <= n; i++ {
			h, ok := decodeFrameHeader(buf[i:], seed)
			if !ok || h.batchStart() <= next {
				continue
			}
			at := base + int64(i)
			if h.size() > size-at {
				continue
			}
			sum, err := payloadCRC(io.NewSectionReader(r, at+frameHeaderSize, int64(h.length)), h.length, seed, scratch)
			if err != nil {
				return -1, fmt.Errorf("wal: read payload at %d: %w", at+frameHeaderSize, err)
			}
			if sum == h.payloadCRC {
				return at, nil
			}
		}
	}
	return -1, nil
}

// payloadCRC reads n bytes from r through scratch and returns their frame
// checksum, so a large payload is never held in memory just to check it.
func payloadCRC(r io.Reader, n uint32, seed uint32, scratch []byte) (uint32, error) {
	sum := seed
	for left := int(n); left > 0; {
		k := min(left, len(scratch))
		if _, err := io.ReadFull(r, scratch[:k]); err != nil {
			return 0, err
		}
		sum = crc32.Update(sum, castagnoli, scratch[:k])
		left -= k
	}
	return sum, nil
}

// recovery is the verdict on a log's frames.
type recovery struct {
	committed
	size int64 // file size; size > end means a torn tail to cut
}

// inspect reads the header and frames of a log of the given size and
// decides whether it is clean, torn (size > end) or corrupt (a
// *CorruptError naming path). It never writes.
func inspect(r io.ReaderAt, size int64, path string) (LineageID, recovery, error) {
	hb := make([]byte, min(size, headerSize))
	if _, err := r.ReadAt(hb, 0); err != nil && !errors.Is(err, io.EOF) {
		return LineageID{}, recovery{}, fmt.Errorf("wal: read header of %s: %w", path, err)
	}
	l, err := decodeHeader(hb)
	if err != nil {
		if ce, ok := errors.AsType[*CorruptError](err); ok {
			ce.Path = path
		}
		return l, recovery{}, err
	}
	seed := l.seed()
	c, err := scanPrefix(r, size, seed)
	if err != nil {
		return l, recovery{}, err
	}
	rec := recovery{committed: c, size: size}
	if c.end == size {
		return l, rec, nil
	}
	at, err := findLaterBatch(r, c.end, size, c.last+1, seed)
	if err != nil {
		return l, rec, err
	}
	if at >= 0 {
		return l, rec, &CorruptError{
			Path:   path,
			Offset: c.end,
			Reason: fmt.Sprintf("frames from seq %d do not validate, yet a later batch starts at offset %d", c.last+1, at),
		}
	}
	return l, rec, nil
}
