package main

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

type event struct{ Type, Data string }

func readAllEvents(r io.Reader) ([]event, error) {
	sr := newSSEReader(r)
	var out []event
	for {
		ev, err := sr.next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, event{string(ev.Type), string(ev.Data)})
	}
}

func TestSSEReader(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		in   string
		want []event
	}{
		{"lf", "data: a\n\ndata: b\n\n", []event{{"", "a"}, {"", "b"}}},
		{"crlf", "data: a\r\n\r\ndata: b\r\n\r\n", []event{{"", "a"}, {"", "b"}}},
		{"lone cr", "data: a\r\rdata: b\r\r", []event{{"", "a"}, {"", "b"}}},
		{"mixed endings", "data: a\r\n\ndata: b\r\rdata: c\n\r\n", []event{{"", "a"}, {"", "b"}, {"", "c"}}},
		{"comments and keep-alives", ": hi\n\n\n\n: OPENROUTER PROCESSING\n\ndata: x\n\n", []event{{"", "x"}}},
		{"multi-line data joined by LF", "data: {\"a\":\ndata: 1}\n\n", []event{{"", "{\"a\":\n1}"}}},
		{"multi-line data with CRLF", "data: a\r\ndata: b\r\n\r\n", []event{{"", "a\nb"}}},
		{"multi-line data with lone CR", "data: a\rdata: b\r\r", []event{{"", "a\nb"}}},
		{"no space after colon", "data:x\n\n", []event{{"", "x"}}},
		{"only the first space is dropped", "data:  x\n\n", []event{{"", " x"}}},
		{"event type", "event: error\ndata: {}\n\n", []event{{"error", "{}"}}},
		{"event type resets after dispatch", "event: error\ndata: 1\n\ndata: 2\n\n", []event{{"error", "1"}, {"", "2"}}},
		{"event without data is dropped", "event: ping\n\ndata: 1\n\n", []event{{"", "1"}}},
		{"empty data line dispatches empty data", "data:\n\n", []event{{"", ""}}},
		{"field without colon", "data\n\n", []event{{"", ""}}},
		{"id and retry ignored", "id: 7\nretry: 10\ndata: z\n\n", []event{{"", "z"}}},
		{"unknown field ignored", "foo: bar\ndata: z\n\n", []event{{"", "z"}}},
		{"pending event at EOF", "data: a\n\ndata: [DONE]", []event{{"", "a"}, {"", "[DONE]"}}},
		{"pending event at EOF after newline", "data: [DONE]\n", []event{{"", "[DONE]"}}},
		{"empty input", "", nil},
		{"utf-8 kept", "data: héllo ✓\n\n", []event{{"", "héllo ✓"}}},
		{"line longer than the buffer", "data: " + strings.Repeat("x", 3*sseBufferSize) + "\n\n", []event{{"", strings.Repeat("x", 3*sseBufferSize)}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			for name, r := range map[string]io.Reader{
				"whole":         strings.NewReader(c.in),
				"one byte":      iotest.OneByteReader(strings.NewReader(c.in)),
				"half reads":    iotest.HalfReader(strings.NewReader(c.in)),
				"eof with data": iotest.DataErrReader(strings.NewReader(c.in)),
			} {
				got, err := readAllEvents(r)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if diff := cmp.Diff(c.want, got); diff != "" {
					t.Errorf("%s reader (-want +got):\n%s", name, diff)
				}
			}
		})
	}
}

func TestSSEReaderLimits(t *testing.T) {
	t.Parallel()
	t.Run("event too large", func(t *testing.T) {
		sr := newSSEReader(strings.NewReader("data: 0123456789\ndata: 0123456789\n\n"))
		sr.max = 16
		if _, err := sr.next(); !errors.Is(err, errEventTooLarge) {
			t.Fatalf("got %v, want errEventTooLarge", err)
		}
	})
	t.Run("line too large", func(t *testing.T) {
		sr := newSSEReader(strings.NewReader("data: " + strings.Repeat("x", 4*sseBufferSize) + "\n\n"))
		sr.max = 2 * sseBufferSize
		if _, err := sr.next(); !errors.Is(err, errEventTooLarge) {
			t.Fatalf("got %v, want errEventTooLarge", err)
		}
	})
	t.Run("read error surfaces", func(t *testing.T) {
		boom := errors.New("connection reset")
		sr := newSSEReader(io.MultiReader(strings.NewReader("data: a\n\ndata: b"), iotest.ErrReader(boom)))
		if _, err := sr.next(); err != nil {
			t.Fatalf("first event: %v", err)
		}
		if _, err := sr.next(); !errors.Is(err, boom) {
			t.Fatalf("got %v, want the read error", err)
		}
	})
}
