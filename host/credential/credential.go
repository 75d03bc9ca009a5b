// Package credential resolves credential references (env:NAME, file:PATH)
// into secrets, lazily and only inside the host. A Secret never prints: its
// String, GoString and JSON forms are redacted, so a secret that reaches a
// log line or an error by mistake still shows nothing.
//
// Only the egress package reads a secret's value.
package credential

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Ref is a reference to a credential: where to find it, never the value.
type Ref struct {
	source string // "env" or "file"
	name   string // variable name or path
}

// Parse reads "env:NAME" or "file:PATH". The empty string is the zero Ref:
// no credential.
func Parse(s string) (Ref, error) {
	if s == "" {
		return Ref{}, nil
	}
	src, name, ok := strings.Cut(s, ":")
	if !ok || name == "" || (src != "env" && src != "file") {
		return Ref{}, fmt.Errorf("credential reference %q: want env:NAME or file:PATH", s)
	}
	return Ref{source: src, name: name}, nil
}

// MustParse is Parse for literals in tests and tables.
func MustParse(s string) Ref {
	r, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return r
}

// IsZero reports whether r names no credential.
func (r Ref) IsZero() bool { return r.source == "" }

// String is the reference itself ("env:NAME"), which is safe to print.
func (r Ref) String() string {
	if r.IsZero() {
		return "none"
	}
	return r.source + ":" + r.name
}

// Env looks up an environment variable; os.LookupEnv in production.
type Env func(string) (string, bool)

// ErrMissing is returned when the referenced variable or file is absent.
var ErrMissing = errors.New("credential not found")

// Resolve reads the secret now. Errors name the reference, never a value.
func (r Ref) Resolve(env Env) (Secret, error) {
	switch r.source {
	case "":
		return Secret{}, nil
	case "env":
		if env == nil {
			env = os.LookupEnv
		}
		v, ok := env(r.name)
		if !ok || strings.TrimSpace(v) == "" {
			return Secret{}, fmt.Errorf("credential %s: %w (environment variable not set)", r, ErrMissing)
		}
		return Secret{v: strings.TrimSpace(v)}, nil
	case "file":
		b, err := os.ReadFile(expandHome(r.name))
		if errors.Is(err, os.ErrNotExist) {
			return Secret{}, fmt.Errorf("credential %s: %w (no such file)", r, ErrMissing)
		}
		if err != nil {
			return Secret{}, fmt.Errorf("credential %s: cannot read the file", r)
		}
		v := strings.TrimSpace(string(b))
		if v == "" {
			return Secret{}, fmt.Errorf("credential %s: %w (file is empty)", r, ErrMissing)
		}
		return Secret{v: v}, nil
	}
	return Secret{}, fmt.Errorf("credential %s: unknown source", r)
}

func expandHome(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, strings.TrimPrefix(p, "~"))
		}
	}
	return p
}

// Secret holds a resolved credential.
type Secret struct{ v string }

const redacted = "[redacted]"

// Value returns the secret. Only the egress injector calls it.
func (s Secret) Value() string { return s.v }

// IsZero reports whether there is no secret.
func (s Secret) IsZero() bool { return s.v == "" }

func (s Secret) String() string               { return redacted }
func (s Secret) GoString() string             { return redacted }
func (s Secret) MarshalJSON() ([]byte, error) { return []byte(`"` + redacted + `"`), nil }

// Redact replaces every occurrence of the secret in text.
func (s Secret) Redact(text string) string {
	if s.v == "" {
		return text
	}
	return strings.ReplaceAll(text, s.v, redacted)
}
