// Package credential resolves credential references (a credref.Ref, env:NAME
// or file:PATH, which the configuration parsed) into secrets, lazily and only
// inside the host. A Secret never prints: its String, GoString and JSON forms
// are redacted, so a secret that reaches a log line or an error by mistake
// still shows nothing.
//
// Only the egress package reads a secret's value.
package credential

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/axonhq/axon/hcl/credref"
)

// Env looks up an environment variable; os.LookupEnv in production.
type Env func(string) (string, bool)

// ErrMissing is returned when the referenced variable or file is absent.
var ErrMissing = errors.New("credential not found")

// Resolve reads the secret ref names, now. The zero Ref resolves to the
// zero Secret. Errors name the reference, never a value.
func Resolve(ref credref.Ref, env Env) (Secret, error) {
	switch ref.Source() {
	case "":
		return Secret{}, nil
	case credref.SourceEnv:
		if env == nil {
			env = os.LookupEnv
		}
		v, ok := env(ref.Name())
		if !ok || strings.TrimSpace(v) == "" {
			return Secret{}, fmt.Errorf("credential %s: %w (environment variable not set)", ref, ErrMissing)
		}
		return Secret{v: strings.TrimSpace(v)}, nil
	case credref.SourceFile:
		b, err := os.ReadFile(expandHome(ref.Name()))
		if errors.Is(err, os.ErrNotExist) {
			return Secret{}, fmt.Errorf("credential %s: %w (no such file)", ref, ErrMissing)
		}
		if err != nil {
			return Secret{}, fmt.Errorf("credential %s: cannot read the file", ref)
		}
		v := strings.TrimSpace(string(b))
		if v == "" {
			return Secret{}, fmt.Errorf("credential %s: %w (file is empty)", ref, ErrMissing)
		}
		return Secret{v: v}, nil
	}
	return Secret{}, fmt.Errorf("credential %s: unknown source", ref)
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
