package sse

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

type event struct{ Type, Data, ID string }

// readAll drains r, copying each event (the reader reuses its buffers).
func readAll(r *Reader) ([]event, error) {
	var out []event
	for {
		ev, err := r.Next()
		if err != nil {
			return out, err
		}
		out = append(out, event{string(ev.Type), string(ev.Data), string(ev.ID)})
	}
}

// readers are the ways a body may arrive: whole, split at every byte, in
// halves, and with io.EOF on the same Read as the last bytes.
func readers(in string) map[string]io.Reader {
	return map[string]io.Reader{
		"whole":         strings.NewReader(in),
		"one byte":      iotest.OneByteReader(strings.NewReader(in)),
		"half reads":    iotest.HalfReader(strings.NewReader(in)),
		"eof with data": iotest.DataErrReader(strings.NewReader(in)),
	}
}

func TestReader(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 3*bufferSize) // longer than the reader's buffer
	tests := []struct {
		name    string
		in      string
		lenient bool
		want    []event
		wantErr error // nil means io.EOF
	}{
		{name: "lf", in: "event: a\ndata: 1\n\nevent: b\ndata: 2\n\n", want: []event{{"a", "1", ""}, {"b", "2", ""}}},
		{name: "crlf", in: "event: a\r\ndata: 1\r\n\r\n", want: []event{{"a", "1", ""}}},
		{name: "lone cr", in: "data: a\r\rdata: b\r\r", want: []event{{"", "a", ""}, {"", "b", ""}}},
		{name: "mixed line ends", in: "data: a\r\n\ndata: b\r\rdata: c\n\r\n", want: []event{{"", "a", ""}, {"", "b", ""}, {"", "c", ""}}},
		{name: "crlf crlf event ends", in: "data: {}\r\n\r\ndata: []\r\n\r\n", want: []event{{"", "{}", ""}, {"", "[]", ""}}},
		{name: "comments and blank runs", in: ": hello\n\n\n:x\nevent: a\n: inside\ndata: 1\n\n", want: []event{{"a", "1", ""}}},
		{name: "keep-alive comment", in: ": OPENROUTER PROCESSING\n\ndata: x\n\n", want: []event{{"", "x", ""}}},
		{name: "multi-line data joined by LF", in: "data: {\"a\":\ndata:  1}\ndata:\n\n", want: []event{{"", "{\"a\":\n 1}\n", ""}}},
		{name: "multi-line data with lone CR", in: "data: a\rdata: b\r\r", want: []event{{"", "a\nb", ""}}},
		{name: "only the first space is dropped", in: "data:x\n\ndata:  y\n\n", want: []event{{"", "x", ""}, {"", " y", ""}}},
		{name: "event type resets after dispatch", in: "event: a\ndata: 1\n\ndata: 2\n\n", want: []event{{"a", "1", ""}, {"", "2", ""}}},
		{name: "event without data is not dispatched", in: "event: a\n\ndata: 2\n\n", want: []event{{"", "2", ""}}},
		{name: "empty data line dispatches empty data", in: "data:\n\n", want: []event{{"", "", ""}}},
		{name: "field without colon", in: "data\n\n", want: []event{{"", "", ""}}},
		{name: "id persists until changed", in: "id: 7\ndata: 1\n\ndata: 2\n\nid: 8\ndata: 3\n\nid\ndata: 4\n\n", want: []event{{"", "1", "7"}, {"", "2", "7"}, {"", "3", "8"}, {"", "4", ""}}},
		{name: "id with NUL ignored", in: "id: 1\ndata: a\n\nid: 2\x003\ndata: b\n\n", want: []event{{"", "a", "1"}, {"", "b", "1"}}},
		{name: "retry and unknown fields ignored", in: "retry: 10\nfoo: bar\nnocolon\ndata: 1\n\n", want: []event{{"", "1", ""}}},
		{name: "bom", in: "\ufeffdata: 1\n\n", want: []event{{"", "1", ""}}},
		{name: "bom only at the start", in: "data: 1\n\n\ufeffdata: 2\n\n", want: []event{{"", "1", ""}}},
		{name: "utf-8 kept", in: "data: héllo ✓\n\n", want: []event{{"", "héllo ✓", ""}}},
		{name: "line longer than the buffer", in: "data: " + long + "\n\n", want: []event{{"", long, ""}}},
		{name: "last event whole but unterminated", in: "data: 1\n\ndata: 2\n", want: []event{{"", "1", ""}, {"", "2", ""}}},
		{name: "last event ends in a lone CR", in: "data: 1\r", want: []event{{"", "1", ""}}},
		{name: "cut inside a line", in: "data: 1\n\ndata: {\"typ", want: []event{{"", "1", ""}}, wantErr: io.ErrUnexpectedEOF},
		{name: "cut inside a long line", in: "data: 1\n\ndata: " + long, want: []event{{"", "1", ""}}, wantErr: io.ErrUnexpectedEOF},
		{name: "lenient: cut line dispatched", in: "data: a\n\ndata: [DONE]", lenient: true, want: []event{{"", "a", ""}, {"", "[DONE]", ""}}},
		{name: "lenient: cut long line dispatched", in: "data: " + long, lenient: true, want: []event{{"", long, ""}}},
		{name: "lenient: cut comment dropped", in: "data: a\n\n: bye", lenient: true, want: []event{{"", "a", ""}}},
		{name: "empty", in: ""},
		{name: "only comments", in: ": a\n: b\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			wantErr := tc.wantErr
			if wantErr == nil {
				wantErr = io.EOF
			}
			for how, in := range readers(tc.in) {
				r := NewReader(in)
				r.LenientEnd = tc.lenient
				got, err := readAll(r)
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("%s: events (-want +got):\n%s", how, diff)
				}
				if !errors.Is(err, wantErr) {
					t.Errorf("%s: end error %v, want %v", how, err, wantErr)
				}
				if _, again := r.Next(); !errors.Is(again, wantErr) {
					t.Errorf("%s: Next after the end returned %v, want %v again", how, again, wantErr)
				}
			}
		})
	}
}

// TestReaderDoesNotReadAhead: an event is returned as soon as its blank line
// arrives, whatever line end it uses; the reader never waits for more input
// (here, a read that would fail) to see whether an LF follows a CR.
func TestReaderDoesNotReadAhead(t *testing.T) {
	t.Parallel()
	blocked := errors.New("the next read would block")
	for _, in := range []string{"data: a\n\n", "data: a\r\n\r\n", "data: a\r\r"} {
		r := NewReader(io.MultiReader(iotest.OneByteReader(strings.NewReader(in)), iotest.ErrReader(blocked)))
		ev, err := r.Next()
		if err != nil || string(ev.Data) != "a" {
			t.Errorf("%q: got %q, %v; want the event before any further read", in, ev.Data, err)
		}
		if _, err := r.Next(); !errors.Is(err, blocked) {
			t.Errorf("%q: second Next returned %v, want the read error", in, err)
		}
	}
}

func TestReaderLimits(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		max  int
		want error
	}{
		{"event over the limit", "data: 0123456789\ndata: 0123456789\n\n", 20, ErrEventTooLarge},
		{"event at the limit", "data: 0123456789\ndata: 0123456789\n\n", 21, io.EOF},
		{"line over the limit", "data: " + strings.Repeat("x", 4*bufferSize) + "\n\n", 2 * bufferSize, ErrEventTooLarge},
		{"cut line over the limit", "data: " + strings.Repeat("x", 4*bufferSize), 2 * bufferSize, ErrEventTooLarge},
		{"no limit", "data: " + strings.Repeat("x", 4*bufferSize) + "\n\n", 0, io.EOF},
		{"line at the limit", "data: 0123456789\n\n", 16, io.EOF},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := NewReader(strings.NewReader(tc.in))
			r.MaxEventSize = tc.max
			r.LenientEnd = true
			if _, err := readAll(r); !errors.Is(err, tc.want) {
				t.Errorf("got %v, want %v", err, tc.want)
			}
		})
	}
}

// TestReaderPassesReadErrors: a failing body is reported as itself, not as
// a clean end, and the event it cut is not dispatched.
func TestReaderPassesReadErrors(t *testing.T) {
	t.Parallel()
	boom := errors.New("connection reset")
	r := NewReader(io.MultiReader(strings.NewReader("data: 1\n\ndata: 2"), iotest.ErrReader(boom)))
	got, err := readAll(r)
	if diff := cmp.Diff([]event{{"", "1", ""}}, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if !errors.Is(err, boom) {
		t.Errorf("error %v, want %v", err, boom)
	}
}
