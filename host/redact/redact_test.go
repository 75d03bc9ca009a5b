package redact

import (
	"bytes"
	"encoding/base64"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

const secret = "sk-test-Zq9+/Kx7Lm3Vb5Nc1Wd8Ye2Rf4"

func TestEveryFormIsMasked(t *testing.T) {
	t.Parallel()
	r := New(secret)
	tests := map[string]string{
		"raw":             "key=" + secret,
		"query":           "/v1?key=" + url.QueryEscape(secret) + "&x=1",
		"path":            "/keys/" + url.PathEscape(secret),
		"json":            `{"code":"` + strings.ReplaceAll(secret, "/", `\/`) + `"}`,
		"basic":           "Basic " + base64.StdEncoding.EncodeToString([]byte("user:"+secret)),
		"basic offset 1":  "Basic " + base64.StdEncoding.EncodeToString([]byte("us:"+secret+"!")),
		"basic offset 2":  "Basic " + base64.StdEncoding.EncodeToString([]byte("u:"+secret+"!!")),
		"base64url":       base64.URLEncoding.EncodeToString([]byte("x" + secret)),
		"raw base64":      base64.RawStdEncoding.EncodeToString([]byte(secret)),
		"twice in a line": secret + " and " + secret,
	}
	for name, in := range tests {
		got := r.String(in)
		if strings.Contains(got, secret) || !strings.Contains(got, Mask) {
			t.Errorf("%s: %q -> %q", name, in, got)
		}
		for _, enc := range []string{url.QueryEscape(secret), base64.StdEncoding.EncodeToString([]byte(secret))[4:20]} {
			if strings.Contains(got, enc) {
				t.Errorf("%s: an encoded form survives in %q", name, got)
			}
		}
	}
	if got := New("").String("nothing " + secret); got != "nothing "+secret {
		t.Errorf("an empty secret masked %q", got)
	}
	if got := r.String("an ordinary answer"); got != "an ordinary answer" {
		t.Errorf("ordinary text changed: %q", got)
	}
}

func TestHeaderValuesAreMasked(t *testing.T) {
	t.Parallel()
	h := http.Header{"Location": {"https://evil.example/?k=" + url.QueryEscape(secret)}, "X-Echo": {"Bearer " + secret}}
	New(secret).Header(h)
	for k, vs := range h {
		for _, v := range vs {
			if strings.Contains(v, secret) || strings.Contains(v, url.QueryEscape(secret)) {
				t.Errorf("%s: %q", k, v)
			}
		}
	}
}

// chunked yields its chunks one Read at a time.
type chunked struct{ chunks [][]byte }

func (c *chunked) Read(p []byte) (int, error) {
	if len(c.chunks) == 0 {
		return 0, io.EOF
	}
	n := copy(p, c.chunks[0])
	if c.chunks[0] = c.chunks[0][n:]; len(c.chunks[0]) == 0 {
		c.chunks = c.chunks[1:]
	}
	return n, nil
}
func (c *chunked) Close() error { return nil }

// TestStreamAtEveryBoundary splits a body holding the secret at every
// position, and byte by byte, and reads it with buffers shorter and longer
// than the secret's longest form (the reader settles bytes in the caller's
// buffer when it can, in its own when it cannot): the output is always the
// masked whole.
func TestStreamAtEveryBoundary(t *testing.T) {
	t.Parallel()
	for _, s := range []string{secret, "k3y"} { // a key shorter than the mask too
		for _, size := range []int{1, 16, 4096} {
			streamAtEveryBoundary(t, s, size)
		}
	}
}

func streamAtEveryBoundary(t *testing.T, secret string, size int) {
	r := New(secret)
	body := []byte("data: {\"echo\":\"Bearer " + secret + "\"}\n\ndata: k3 " + secret + secret + " [DONE]\n\n")
	want := r.String(string(body))
	read := func(chunks [][]byte) string {
		rd := r.Reader(&chunked{chunks: chunks})
		var out []byte
		p := make([]byte, size)
		for {
			n, err := rd.Read(p)
			out = append(out, p[:n]...)
			if err == io.EOF {
				return string(out)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	for i := 1; i < len(body); i++ {
		if got := read([][]byte{append([]byte{}, body[:i]...), append([]byte{}, body[i:]...)}); got != want {
			t.Fatalf("secret %q, reads of %d bytes, split at %d: %q", secret, size, i, got)
		}
	}
	var bytewise [][]byte
	for _, c := range body {
		bytewise = append(bytewise, []byte{c})
	}
	if got := read(bytewise); got != want {
		t.Fatalf("secret %q, reads of %d bytes, byte by byte: %q", secret, size, got)
	}
}

// TestStreamLeavesNoSecretInTheBuffer: a read that masked something leaves
// the secret nowhere in the caller's buffer, not even past the bytes it
// returned.
func TestStreamLeavesNoSecretInTheBuffer(t *testing.T) {
	t.Parallel()
	rd := New(secret).Reader(io.NopCloser(strings.NewReader("data: key=" + secret)))
	p := make([]byte, 4096)
	for {
		_, err := rd.Read(p)
		if bytes.Contains(p, []byte(secret[len(secret)/2:])) {
			t.Fatalf("the buffer holds the secret: %q", p)
		}
		if err != nil {
			break
		}
	}
}

// TestStreamHoldsNothingItNeedNot: an event that cannot begin the secret
// is returned before the next one is written (a held-back byte would hang
// this test until its guard).
func TestStreamHoldsNothingItNeedNot(t *testing.T) {
	t.Parallel()
	pr, pw := io.Pipe()
	rd := New(secret).Reader(pr)
	got := make(chan string)
	go func() {
		buf := make([]byte, 64)
		for {
			n, err := rd.Read(buf)
			if n > 0 {
				got <- string(buf[:n])
			}
			if err != nil {
				close(got)
				return
			}
		}
	}()
	for _, ev := range []string{"data: one\n\n", "data: two\n\n"} {
		go pw.Write([]byte(ev))
		select {
		case g := <-got:
			if g != ev {
				t.Fatalf("got %q, want %q", g, ev)
			}
		case <-time.After(10 * time.Second): // hang guard
			t.Fatalf("%q was held back", ev)
		}
	}
	pw.Close()
}

func BenchmarkReader(b *testing.B) {
	r := New(secret)
	body := bytes.Repeat([]byte("data: {\"choices\":[{\"delta\":{\"content\":\"some text\"}}]}\n\n"), 1<<12)
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		io.Copy(io.Discard, r.Reader(io.NopCloser(bytes.NewReader(body))))
	}
}

// TestScanAgreesWithTheNaiveOne: on bodies built from fragments of every
// form of the secret, the masking and the held tail are those of comparing
// every needle at every position.
func TestScanAgreesWithTheNaiveOne(t *testing.T) {
	t.Parallel()
	for _, s := range []string{secret, "k3y", "x"} {
		r := New(s)
		var pieces []string
		for _, n := range r.needles {
			pieces = append(pieces, string(n), string(n[:len(n)/2]), string(n[len(n)/2:]), string(n[:len(n)-1]), string(n[1:]))
		}
		pieces = append(pieces, "data: ", "\n\n", "s", "k", "c2", " ")
		rng := rand.New(rand.NewPCG(1, uint64(len(s))))
		for range 2000 {
			var b []byte
			for range rng.IntN(12) {
				b = append(b, pieces[rng.IntN(len(pieces))]...)
			}
			if got, want := string(r.replace(b)), string(naiveReplace(r, b)); got != want {
				t.Fatalf("secret %q, body %q: replace %q, want %q", s, b, got, want)
			}
			if got, want := r.pendingPrefix(b), naivePending(r, b); got != want {
				t.Fatalf("secret %q, body %q: holds %d bytes, want %d", s, b, got, want)
			}
		}
	}
}

func naiveReplace(r *Redactor, b []byte) []byte {
	var out []byte
	for i := 0; i < len(b); {
		best := 0
		for _, n := range r.needles {
			if len(n) > best && bytes.HasPrefix(b[i:], n) {
				best = len(n)
			}
		}
		if best > 0 {
			out = append(out, Mask...)
			i += best
			continue
		}
		out = append(out, b[i])
		i++
	}
	return out
}

func naivePending(r *Redactor, b []byte) int {
	hold := 0
	for _, n := range r.needles {
		for k := min(len(n)-1, len(b)); k > hold; k-- {
			if bytes.HasSuffix(b, n[:k]) {
				hold = k
				break
			}
		}
	}
	return hold
}

// BenchmarkReaderEvents is one streamed response as the egress reads it:
// a new Reader, 18 events of 230 bytes arriving one read at a time.
func BenchmarkReaderEvents(b *testing.B) {
	r := New(secret)
	event := []byte(`data: {"id":"chatcmpl-mock-1","object":"chat.completion.chunk","created":1764633600,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{"content":"lorem "},"logprobs":null,"finish_reason":null}],"usage":null}` + "\n\n")
	chunks := make([][]byte, 18)
	buf := make([]byte, 32<<10)
	b.SetBytes(int64(len(event) * len(chunks)))
	b.ReportAllocs()
	for b.Loop() {
		for i := range chunks {
			chunks[i] = event
		}
		rd := r.Reader(&chunked{chunks: chunks})
		for {
			if _, err := rd.Read(buf); err != nil {
				break
			}
		}
	}
}
