package main

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

type gotEvent struct{ Name, Data string }

// readAll drains r, copying each event (the reader reuses its buffers).
func readAll(r *sseReader) ([]gotEvent, error) {
	var out []gotEvent
	for {
		ev, err := r.Next()
		if err != nil {
			return out, err
		}
		out = append(out, gotEvent{string(ev.Name), string(ev.Data)})
	}
}

func TestSSEReader(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 40<<10) // longer than the reader's buffer
	tests := map[string]struct {
		in      string
		want    []gotEvent
		wantErr error
	}{
		"basic": {
			in:      "event: a\ndata: 1\n\nevent: b\ndata: 2\n\n",
			want:    []gotEvent{{"a", "1"}, {"b", "2"}},
			wantErr: io.EOF,
		},
		"crlf": {
			in:      "event: a\r\ndata: 1\r\n\r\n",
			want:    []gotEvent{{"a", "1"}},
			wantErr: io.EOF,
		},
		"comments and blank runs": {
			in:      ": hello\n\n\n:x\nevent: a\n: inside\ndata: 1\n\n",
			want:    []gotEvent{{"a", "1"}},
			wantErr: io.EOF,
		},
		"multi-line data joined with newline": {
			in:      "data: {\"a\":\ndata:  1}\ndata:\n\n",
			want:    []gotEvent{{"", "{\"a\":\n 1}\n"}},
			wantErr: io.EOF,
		},
		"only one leading space stripped; no space is fine": {
			in:      "data:x\n\ndata:  y\n\n",
			want:    []gotEvent{{"", "x"}, {"", " y"}},
			wantErr: io.EOF,
		},
		"event name does not leak into the next event": {
			in:      "event: a\ndata: 1\n\ndata: 2\n\n",
			want:    []gotEvent{{"a", "1"}, {"", "2"}},
			wantErr: io.EOF,
		},
		"event without data is not dispatched": {
			in:      "event: a\n\ndata: 2\n\n",
			want:    []gotEvent{{"", "2"}},
			wantErr: io.EOF,
		},
		"id, retry and unknown fields ignored": {
			in:      "id: 7\nretry: 10\nfoo: bar\nnocolon\ndata: 1\n\n",
			want:    []gotEvent{{"", "1"}},
			wantErr: io.EOF,
		},
		"bom": {
			in:      "\ufeffdata: 1\n\n",
			want:    []gotEvent{{"", "1"}},
			wantErr: io.EOF,
		},
		"line longer than the buffer": {
			in:      "data: " + long + "\n\n",
			want:    []gotEvent{{"", long}},
			wantErr: io.EOF,
		},
		"last event whole but unterminated is dispatched": {
			in:      "data: 1\n\ndata: 2\n",
			want:    []gotEvent{{"", "1"}, {"", "2"}},
			wantErr: io.EOF,
		},
		"cut inside a line": {
			in:      "data: 1\n\ndata: {\"typ",
			want:    []gotEvent{{"", "1"}},
			wantErr: io.ErrUnexpectedEOF,
		},
		"empty": {in: "", wantErr: io.EOF},
	}
	for name, tc := range tests {
		for _, split := range []bool{false, true} {
			sub := name
			if split {
				sub += "/one-byte-reads"
			}
			t.Run(sub, func(t *testing.T) {
				t.Parallel()
				var r io.Reader = strings.NewReader(tc.in)
				if split {
					r = iotest.OneByteReader(r)
				}
				got, err := readAll(newSSEReader(r))
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("events (-want +got):\n%s", diff)
				}
				if !errors.Is(err, tc.wantErr) {
					t.Errorf("end error %v, want %v", err, tc.wantErr)
				}
			})
		}
	}
}

// TestSSEReaderPassesReadErrors: a failing body is reported as itself, not
// as a clean end.
func TestSSEReaderPassesReadErrors(t *testing.T) {
	t.Parallel()
	boom := errors.New("connection reset")
	r := newSSEReader(io.MultiReader(strings.NewReader("data: 1\n\ndata: 2"), iotest.ErrReader(boom)))
	got, err := readAll(r)
	if diff := cmp.Diff([]gotEvent{{"", "1"}}, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if !errors.Is(err, boom) {
		t.Errorf("error %v, want %v", err, boom)
	}
}
