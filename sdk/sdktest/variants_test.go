package sdktest

import (
	"io"
	"testing"
)

func TestLineEnds(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, crlf, lf string }{
		{"a\nb\n\n", "a\r\nb\r\n\r\n", "a\nb\n\n"},
		{"a\r\nb\r\n\r\n", "a\r\nb\r\n\r\n", "a\nb\n\n"},
		{"a\r\nb\n", "a\r\nb\r\n", "a\nb\n"},
		{"no end", "no end", "no end"},
		{"", "", ""},
	}
	for _, tc := range tests {
		if got := string(CRLF([]byte(tc.in))); got != tc.crlf {
			t.Errorf("CRLF(%q) = %q, want %q", tc.in, got, tc.crlf)
		}
		if got := string(LF([]byte(tc.in))); got != tc.lf {
			t.Errorf("LF(%q) = %q, want %q", tc.in, got, tc.lf)
		}
	}
}

func TestSplitReads(t *testing.T) {
	t.Parallel()
	body := []byte("data: 1\r\n\r\ndata: 2\n\n")
	tests := map[string]struct {
		lineEnds bool
		want     map[string]string
	}{
		"bytes only": {false, map[string]string{"as-recorded": string(body)}},
		"line ends": {true, map[string]string{
			"as-recorded": string(body),
			"crlf":        "data: 1\r\n\r\ndata: 2\r\n\r\n",
			"lf":          "data: 1\n\ndata: 2\n\n",
		}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			readers := SplitReads(body, tc.lineEnds)
			if len(readers) != len(tc.want) {
				t.Errorf("%d readers, want %d", len(readers), len(tc.want))
			}
			for variant, want := range tc.want {
				r, ok := readers[variant]
				if !ok {
					t.Errorf("no %q reader", variant)
					continue
				}
				var got []byte
				buf := make([]byte, 8)
				for {
					n, err := r.Read(buf)
					if n > 1 {
						t.Errorf("%s: a read returned %d bytes, want at most 1", variant, n)
					}
					got = append(got, buf[:n]...)
					if err == io.EOF {
						break
					}
					if err != nil {
						t.Fatal(err)
					}
				}
				if string(got) != want {
					t.Errorf("%s: read %q, want %q", variant, got, want)
				}
			}
		})
	}
}
