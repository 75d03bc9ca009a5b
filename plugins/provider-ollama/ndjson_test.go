package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"

	"github.com/axonhq/axon/sdk"
	"github.com/axonhq/axon/sdk/sdktest"
)

func TestLineReader(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 10<<10) // longer than the bufio buffer
	tests := map[string]struct {
		body string
		want []string
	}{
		"lines":                  {"{\"a\":1}\n{\"b\":2}\n", []string{`{"a":1}`, `{"b":2}`}},
		"crlf and blank lines":   {"\r\n{\"a\":1}\r\n\r\n\n{\"b\":2}\r\n", []string{`{"a":1}`, `{"b":2}`}},
		"last line unterminated": {"{\"a\":1}\n{\"b\":", []string{`{"a":1}`, `{"b":`}},
		"longer than the buffer": {long + "\n" + "{}\n", []string{long, "{}"}},
		"empty":                  {"", nil},
		"only whitespace":        {"\n \r\n\t\n", nil},
	}
	for name, tc := range tests {
		for _, oneByte := range []bool{false, true} {
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				var r io.Reader = strings.NewReader(tc.body)
				if oneByte {
					r = iotest.OneByteReader(r)
				}
				l := newLineReader(r)
				var got []string
				for {
					line, err := l.Next()
					if err == io.EOF {
						break
					}
					if err != nil {
						t.Fatal(err)
					}
					got = append(got, string(line))
				}
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("(-want +got):\n%s", diff)
				}
			})
		}
	}
}

func TestLineReaderBounds(t *testing.T) {
	t.Parallel()
	body := bytes.Repeat([]byte("x"), maxLine+8<<10)
	_, err := newLineReader(bytes.NewReader(append(body, '\n'))).Next()
	if !errors.Is(err, errLineTooLong) {
		t.Errorf("error %v, want errLineTooLong", err)
	}
}

func TestLineReaderPassesReadErrors(t *testing.T) {
	t.Parallel()
	broken := errors.New("connection reset")
	l := newLineReader(io.MultiReader(strings.NewReader("{\"a\":1}\n{\"b\""), iotest.ErrReader(broken)))
	if _, err := l.Next(); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Next(); !errors.Is(err, broken) {
		t.Errorf("error %v, want %v", err, broken)
	}
}

// TestDecodeStreamReadFailure: a connection that breaks between lines is a
// transient failure with our words, not the transport's.
func TestDecodeStreamReadFailure(t *testing.T) {
	t.Parallel()
	body := io.MultiReader(
		strings.NewReader(`{"model":"m","message":{"role":"assistant","content":"Hi"},"done":false}`+"\n"),
		iotest.ErrReader(errors.New("read tcp 10.0.0.7:11434: connection reset by peer")),
	)
	var rec sdktest.Recorder
	err := decodeStream(context.Background(), body, newTurn(&rec))
	if sdk.ClassOf(err) != sdk.ClassTransient || strings.Contains(err.Error(), "10.0.0.7") {
		t.Errorf("error %v, want transient without the transport's text", err)
	}
	if len(rec.Events()) != 2 {
		t.Errorf("events %v, want start and the text delta before the break", rec.Events())
	}
}
