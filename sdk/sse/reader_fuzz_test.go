package sse

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

// recording is one recorded stream.
type recording struct {
	path string
	body []byte
}

// recordedStreams are the provider streams recorded for the plugin tests
// and the front door's golden streams: real framing from every provider.
func recordedStreams(tb testing.TB) []recording {
	tb.Helper()
	var out []recording
	for _, pattern := range []string{"../../plugins/testdata/wire/*/*.sse", "../../host/api/testdata/golden/*.sse"} {
		paths, err := filepath.Glob(pattern)
		if err != nil || len(paths) == 0 {
			tb.Fatalf("no recorded streams match %s: %v", pattern, err)
		}
		for _, p := range paths {
			body, err := os.ReadFile(p)
			if err != nil {
				tb.Fatal(err)
			}
			out = append(out, recording{p, body})
		}
	}
	return out
}

// TestReaderPropertiesOnRecordedStreams checks FuzzSSEReader's properties
// on the whole recordings, which are too long to fuzz from.
// Not parallel: checkStream measures the process's allocations.
func TestReaderPropertiesOnRecordedStreams(t *testing.T) {
	for _, rec := range recordedStreams(t) {
		t.Run(rec.path, func(t *testing.T) {
			checkStream(t, rec.body, 0)
			checkStream(t, rec.body, 512) // some events over the limit
		})
	}
}

// FuzzSSEReader reads arbitrary bytes as a text/event-stream. limit is
// MaxEventSize (0: none). The seeds are the first events of each recorded
// stream and the standard's edge cases, all short: the fuzzer minimises
// every new input it keeps, which takes minutes on a long one. Lines
// longer than the read buffer are TestReader's. make fuzz runs it longer.
func FuzzSSEReader(f *testing.F) {
	for _, rec := range recordedStreams(f) {
		f.Add(streamHead(rec.body, 2<<10), uint16(0))
	}
	for _, seed := range []struct {
		body  string
		limit uint16
	}{
		{"", 0},
		{"\ufeffdata: 1\n\n", 0},
		{"data: a\r\rdata: b\r\ndata: c\n\r\n", 0},
		{"event: a\ndata: {\"a\":\ndata:  1}\ndata:\n\nevent: b\n\n", 0},
		{"id: 1\ndata: a\n\nid: 2\x003\ndata: b\n\nid\ndata: c\n\n", 0},
		{": ping\n\nretry: 10\nfoo\ndata\n\n", 0},
		{"data: 1\n\ndata: {\"typ", 0},
		{"data: a\n\ndata: [DONE]", 0},
		{"data: 1\r", 0},
		{"data: 0123456789\ndata: 0123456789\n\n", 20},
		{"data: 0123456789\n\n", 16},
	} {
		f.Add([]byte(seed.body), seed.limit)
	}
	f.Fuzz(func(t *testing.T, body []byte, limit uint16) {
		checkStream(t, body, int(limit))
	})
}

// streamHead is body cut after the last blank line within its first n
// bytes (at n when there is none): a few whole events, short enough to fuzz.
func streamHead(body []byte, n int) []byte {
	if len(body) <= n {
		return body
	}
	end := n
	for _, blank := range []string{"\n\n", "\r\n\r\n", "\r\r"} {
		if i := bytes.LastIndex(body[:n], []byte(blank)); i >= 0 && (end == n || i+len(blank) > end) {
			end = i + len(blank)
		}
	}
	return body[:end]
}

// checkStream checks what a plugin relies on when reading body with
// MaxEventSize maxSize: the same events however the body is split into
// reads, a strict read that is a prefix of the lenient one, events free of
// line ends that re-encode to a stream that reads back the same, the size
// limit kept, and work linear in the input.
func checkStream(t *testing.T, body []byte, maxSize int) {
	t.Helper()
	strict, strictErr := fuzzRead(t, bytes.NewReader(body), maxSize, false)
	for how, r := range map[string]io.Reader{
		"one byte":      iotest.OneByteReader(bytes.NewReader(body)),
		"half reads":    iotest.HalfReader(bytes.NewReader(body)),
		"eof with data": iotest.DataErrReader(bytes.NewReader(body)),
	} {
		got, err := fuzzRead(t, r, maxSize, false)
		if !slices.Equal(strict, got) || err != strictErr {
			t.Fatalf("%s: events differ from a whole read (-whole +%s):\n%s\nend %v, whole read ended %v", how, how, cmp.Diff(strict, got), err, strictErr)
		}
	}

	lenient, lenientErr := fuzzRead(t, bytes.NewReader(body), maxSize, true)
	if strictErr == io.ErrUnexpectedEOF {
		// Only the cut last line differs: lenient dispatches it, or
		// finds it over the limit.
		if lenientErr != io.EOF && lenientErr != ErrEventTooLarge {
			t.Fatalf("lenient read of a cut stream ended %v, want io.EOF or ErrEventTooLarge", lenientErr)
		}
		if len(lenient) < len(strict) || len(lenient) > len(strict)+1 || !slices.Equal(strict, lenient[:len(strict)]) {
			t.Fatalf("lenient events are not the strict ones plus at most the cut one:\nstrict  %q\nlenient %q", strict, lenient)
		}
	} else if !slices.Equal(strict, lenient) || lenientErr != strictErr {
		t.Fatalf("lenient read differs from strict on a stream that was not cut (-strict +lenient):\n%s\nend %v, strict %v", cmp.Diff(strict, lenient), lenientErr, strictErr)
	}

	lineEnds := bytes.Count(body, []byte("\n")) + bytes.Count(body, []byte("\r"))
	if len(lenient) > lineEnds+1 {
		t.Fatalf("%d events from %d line ends", len(lenient), lineEnds)
	}
	for _, ev := range lenient {
		if strings.ContainsAny(ev.Type, "\r\n") || strings.ContainsAny(ev.ID, "\r\n\x00") || strings.Contains(ev.Data, "\r") {
			t.Fatalf("event holds a line end (or an id a NUL): %q", ev)
		}
		if maxSize > 0 && len(ev.Data) > maxSize {
			t.Fatalf("event of %d bytes passed MaxEventSize %d", len(ev.Data), maxSize)
		}
	}

	for name, events := range map[string][]fuzzEvent{"strict": strict, "lenient": lenient} {
		again, err := fuzzRead(t, bytes.NewReader(fuzzEncode(events)), 0, false)
		if !slices.Equal(events, again) || err != io.EOF {
			t.Fatalf("%s events re-encoded read back differently (-first +again):\n%s\nend %v", name, cmp.Diff(events, again), err)
		}
	}

	// Bounded work: the read buffer, plus buffers grown to hold the
	// longest line and event, never anything per event.
	if n := fuzzAllocated(func() { fuzzDrain(bytes.NewReader(body), maxSize) }); n > 2*bufferSize+16*uint64(len(body)) {
		t.Fatalf("reading %d bytes allocated %d bytes", len(body), n)
	}
}

// fuzzEvent is an Event copied out of the reader's buffers.
type fuzzEvent struct{ Type, Data, ID string }

// fuzzRead drains a Reader of r and returns its events and the error that
// ended them, after checking that the error is one Next documents and that
// Next returns it again.
func fuzzRead(t *testing.T, r io.Reader, maxSize int, lenient bool) ([]fuzzEvent, error) {
	t.Helper()
	sr := NewReader(r)
	sr.MaxEventSize, sr.LenientEnd = maxSize, lenient
	var out []fuzzEvent
	for {
		ev, err := sr.Next()
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, ErrEventTooLarge) {
				t.Fatalf("Next returned an undocumented error: %v", err)
			}
			if _, again := sr.Next(); again != err {
				t.Fatalf("Next after %v returned %v, want the same error again", err, again)
			}
			return out, err
		}
		out = append(out, fuzzEvent{string(ev.Type), string(ev.Data), string(ev.ID)})
	}
}

// fuzzDrain reads every event without copying any, as a plugin's loop does.
func fuzzDrain(r io.Reader, maxSize int) {
	sr := NewReader(r)
	sr.MaxEventSize, sr.LenientEnd = maxSize, true
	for {
		if _, err := sr.Next(); err != nil {
			return
		}
	}
}

// fuzzEncode writes events as a canonical stream: an event line when the
// type is not the default, an id line when the id changes, a data line per
// LF-separated line of data, then a blank line.
func fuzzEncode(events []fuzzEvent) []byte {
	var b bytes.Buffer
	id := ""
	for _, ev := range events {
		if ev.Type != "" {
			b.WriteString("event: " + ev.Type + "\n")
		}
		if ev.ID != id {
			b.WriteString("id: " + ev.ID + "\n")
			id = ev.ID
		}
		for line := range strings.SplitSeq(ev.Data, "\n") {
			b.WriteString("data: " + line + "\n")
		}
		b.WriteString("\n")
	}
	return b.Bytes()
}

// fuzzAllocated is the number of bytes fn allocates. It counts the whole
// process, so it is used only where nothing else runs: in a fuzz worker, in
// the seed run (after the package's tests) and in tests that are not
// parallel.
func fuzzAllocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}
