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
	first   [256]bool // bytes some needle starts with
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
	for f := range forms {
		if f == "" {
			continue
		}
		r.needles = append(r.needles, []byte(f))
		r.first[f[0]] = true
		r.longest = max(r.longest, len(f))
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
	if r.Empty() || !r.mayContain([]byte(s)) {
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

func (r *Redactor) mayContain(b []byte) bool {
	for _, n := range r.needles {
		if bytes.Contains(b, n) {
			return true
		}
	}
	return false
}

// replace masks every occurrence, leftmost first, longest needle first. It
// returns b itself when there is none.
func (r *Redactor) replace(b []byte) []byte {
	if !r.mayContain(b) {
		return b
	}
	var out bytes.Buffer
	out.Grow(len(b))
	for i := 0; i < len(b); {
		if r.first[b[i]] {
			if n := r.matchAt(b[i:]); n > 0 {
				out.WriteString(Mask)
				i += n
				continue
			}
		}
		out.WriteByte(b[i])
		i++
	}
	return out.Bytes()
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
// knows whether the secret follows.
func (r *Redactor) pendingPrefix(b []byte) int {
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
