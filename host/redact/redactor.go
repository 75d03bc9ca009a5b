package redact

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
)

// Mask replaces every form of the secret.
const Mask = "[redacted]"

// minEncoded is the shortest encoded fragment worth masking: a shorter
// base64 middle would mask ordinary text.
const minEncoded = 12

// Redactor masks one secret. The zero value and nil mask nothing.
type Redactor struct {
	needles [][]byte
	first   [256]bool             // bytes some needle starts with
	single  [256]bool             // needles of one byte
	pairs   *[1 << 16 / 64]uint64 // bit b0<<8|b1: some needle starts with b0 b1
	longest int
}

// New returns a redactor for secret ("" masks nothing).
func New(secret string) *Redactor {
	r := &Redactor{}
	if secret == "" {
		return r
	}
	forms := map[string]bool{secret: true, url.QueryEscape(secret): true, url.PathEscape(secret): true}
	if j, err := json.Marshal(secret); err == nil {
		inner := string(j[1 : len(j)-1])
		forms[inner] = true
		forms[strings.ReplaceAll(inner, "/", `\/`)] = true // PHP and others escape the solidus
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
		for _, f := range base64Middles(enc, []byte(secret)) {
			forms[f] = true
		}
	}
	r.pairs = new([1 << 16 / 64]uint64)
	for f := range forms {
		if f == "" {
			continue
		}
		r.needles = append(r.needles, []byte(f))
		r.first[f[0]] = true
		r.longest = max(r.longest, len(f))
		if len(f) == 1 {
			r.single[f[0]] = true
		} else {
			pair := uint16(f[0])<<8 | uint16(f[1])
			r.pairs[pair/64] |= 1 << (pair % 64)
		}
	}
	return r
}

// base64Middles are the characters of the base64 encoding of secret that
// depend on the secret's bits alone, at each of the three byte alignments
// it can have inside a longer encoded value (a Basic credential, a token).
func base64Middles(enc *base64.Encoding, secret []byte) []string {
	var out []string
	for off := range 3 {
		buf := append(make([]byte, off), secret...)
		full := enc.EncodeToString(buf)
		start := (off*8 + 5) / 6             // first character with no bit of the padding prefix
		end := ((off + len(secret)) * 8) / 6 // last character made only of secret bits
		if end-start >= minEncoded && end <= len(full) {
			out = append(out, full[start:end])
		}
	}
	return out
}

// Empty reports whether r masks nothing.
func (r *Redactor) Empty() bool { return r == nil || len(r.needles) == 0 }

// String masks every form of the secret in s.
func (r *Redactor) String(s string) string {
	if r.Empty() {
		return s
	}
	if i, _ := r.match([]byte(s), 0); i < 0 { // no allocation: the slice does not escape
		return s
	}
	return string(r.replace([]byte(s)))
}

// Header masks every value of h in place.
func (r *Redactor) Header(h http.Header) {
	if r.Empty() {
		return
	}
	for k, vs := range h {
		for i, v := range vs {
			vs[i] = r.String(v)
		}
		h[k] = vs
	}
}

// match returns where the leftmost needle at or after from begins in b,
// and the length of the longest needle there; -1 when there is none. It
// looks at each byte once: only where the first two bytes begin some
// needle does it compare needles.
func (r *Redactor) match(b []byte, from int) (int, int) {
	for i := from; i < len(b); i++ {
		c := b[i]
		if !r.first[c] {
			continue
		}
		if !r.single[c] {
			if i+1 == len(b) {
				break // no needle of two bytes or more fits
			}
			if pair := uint16(c)<<8 | uint16(b[i+1]); r.pairs[pair/64]&(1<<(pair%64)) == 0 {
				continue
			}
		}
		if n := r.matchAt(b[i:]); n > 0 {
			return i, n
		}
	}
	return -1, 0
}

// replace masks every occurrence, leftmost first, longest needle first. It
// returns b itself when there is none.
func (r *Redactor) replace(b []byte) []byte {
	i, n := r.match(b, 0)
	if i < 0 {
		return b
	}
	out := make([]byte, 0, len(b)+len(Mask))
	last := 0
	for i >= 0 {
		out = append(out, b[last:i]...)
		out = append(out, Mask...)
		last = i + n
		i, n = r.match(b, last)
	}
	return append(out, b[last:]...)
}

func (r *Redactor) matchAt(b []byte) int {
	best := 0
	for _, n := range r.needles {
		if len(n) > best && bytes.HasPrefix(b, n) {
			best = len(n)
		}
	}
	return best
}

// pendingPrefix is the length of the longest suffix of b that begins some
// needle without completing it: the bytes a stream must hold back until it
// knows whether the secret follows. Only the last longest-1 bytes can start
// one.
func (r *Redactor) pendingPrefix(b []byte) int {
	for i := max(0, len(b)-(r.longest-1)); i < len(b); i++ {
		if !r.first[b[i]] {
			continue
		}
		tail := b[i:]
		for _, n := range r.needles {
			if len(n) > len(tail) && bytes.HasPrefix(n, tail) {
				return len(tail)
			}
		}
	}
	return 0
}
