package wal

import (
	"bufio"
	"fmt"
	"hash/crc32"
	"io"
)

// replayFrames calls fn with the records of the whole-batch prefix
// [header, end) of a log read through r, from sequence number from on,
// checking each frame again as it is read. marks are the offsets kept by
// scanPrefix; path names the log in errors.
func replayFrames(r io.ReaderAt, path string, seed uint32, end int64, last uint64, marks []int64, from uint64, fn func(seq uint64, payload []byte) error) error {
	from = max(from, 1)
	if from > last {
		return nil
	}
	k := (from - 1) / markEvery // marks has an entry for every k up to (last-1)/markEvery
	off, seq := marks[k], k*markEvery+1
	br := bufio.NewReaderSize(io.NewSectionReader(r, off, end-off), readBufSize)
	var hdr [frameHeaderSize]byte
	for ; seq <= last; seq++ {
		if _, err := io.ReadFull(br, hdr[:]); err != nil {
			return fmt.Errorf("wal: replay %s: read frame %d at %d: %w", path, seq, off, err)
		}
		h, ok := decodeFrameHeader(hdr[:], seed)
		if !ok || h.seq != seq || h.size() > end-off {
			return &CorruptError{Path: path, Offset: off, Reason: fmt.Sprintf("frame %d no longer validates", seq)}
		}
		if seq < from {
			if _, err := br.Discard(int(h.length)); err != nil {
				return fmt.Errorf("wal: replay %s: skip frame %d at %d: %w", path, seq, off, err)
			}
			off += h.size()
			continue
		}
		payload := make([]byte, h.length)
		if _, err := io.ReadFull(br, payload); err != nil {
			return fmt.Errorf("wal: replay %s: read frame %d at %d: %w", path, seq, off, err)
		}
		if crc32.Update(seed, castagnoli, payload) != h.payloadCRC {
			return &CorruptError{Path: path, Offset: off, Reason: fmt.Sprintf("payload of frame %d no longer validates", seq)}
		}
		if err := fn(seq, payload); err != nil {
			return err
		}
		off += h.size()
	}
	return nil
}
