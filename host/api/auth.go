package api

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strings"
)

// tokenCheck compares a client's token with the configured one in constant
// time. Both sides are hashed first, so neither the content nor the length
// of the token leaks through timing.
type tokenCheck struct {
	want [sha256.Size]byte
}

func newTokenCheck(token string) *tokenCheck {
	return &tokenCheck{want: sha256.Sum256([]byte(token))}
}

// allows reports whether r carries the token, as a bearer token (OpenAI
// clients) or in x-api-key (Anthropic clients).
func (t *tokenCheck) allows(r *http.Request) bool {
	ok := false
	if v := r.Header.Get("Authorization"); len(v) > len("bearer ") && strings.EqualFold(v[:len("bearer ")], "bearer ") {
		ok = t.matches(strings.TrimSpace(v[len("bearer "):]))
	}
	if v := r.Header.Get("x-api-key"); v != "" {
		ok = t.matches(v) || ok
	}
	return ok
}

func (t *tokenCheck) matches(got string) bool {
	h := sha256.Sum256([]byte(got))
	return subtle.ConstantTimeCompare(h[:], t.want[:]) == 1
}
