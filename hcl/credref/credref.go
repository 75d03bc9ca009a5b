// Package credref is the reference to a credential that a configuration
// names: env:NAME or file:PATH. It parses and prints references and never
// reads one; the host's credential package resolves them, only when it calls
// a provider. It imports nothing from this module, so the configuration and
// the host share the type without the host depending on the HCL reader or
// the reader on the host.
package credref

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// Ref is a reference to a secret, never the secret. Its String form is the
// reference itself ("env:ZAI_API_KEY", "file:/home/pi/.config/axon/zai.key"),
// which is safe to print. The zero Ref names no credential; any other comes
// from Parse, Env or File, so every Ref has passed the same validation.
type Ref struct {
	source Source
	name   string // environment variable name, or file path
}

// Source says where the host reads a credential from.
type Source string

const (
	SourceEnv  Source = "env"
	SourceFile Source = "file"
)

// ErrLiteral is Parse's error for text that is not a reference at all. The
// text may be a pasted secret, so neither this error nor any other from this
// package repeats its input.
var ErrLiteral = errors.New(`a credential must be a reference built with env("NAME") or file("PATH"), not a literal value`)

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Parse reads "env:NAME" or "file:PATH", as env() and file() produce them.
// The empty string is an error, not the zero Ref: a configuration that
// writes a credential must name one.
func Parse(s string) (Ref, error) {
	source, name, ok := strings.Cut(s, ":")
	if !ok {
		return Ref{}, ErrLiteral
	}
	switch Source(source) {
	case SourceEnv:
		return Env(name)
	case SourceFile:
		return File(name)
	}
	return Ref{}, ErrLiteral
}

// MustParse is Parse for literals in tests and tables.
func MustParse(s string) Ref {
	r, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return r
}

// Env is the reference to the environment variable name: letters, digits
// and _, not starting with a digit.
func Env(name string) (Ref, error) {
	if !envName.MatchString(name) {
		return Ref{}, errors.New(`"env:" must be followed by an environment variable name (letters, digits and _)`)
	}
	return Ref{source: SourceEnv, name: name}, nil
}

// File is the reference to the file at path. A path that begins or ends
// with white space is refused rather than trimmed: trimming would read a
// file other than the one named, and keeping it is almost surely a typo.
func File(path string) (Ref, error) {
	switch {
	case path == "":
		return Ref{}, errors.New(`"file:" must be followed by a path`)
	case strings.TrimSpace(path) != path:
		return Ref{}, errors.New(`a credential file path must not begin or end with white space`)
	}
	return Ref{source: SourceFile, name: path}, nil
}

// IsZero reports whether r names no credential.
func (r Ref) IsZero() bool { return r.source == "" }

// Source is where the credential is read from; "" for the zero Ref.
func (r Ref) Source() Source { return r.source }

// Name is the environment variable name or the file path.
func (r Ref) Name() string { return r.name }

// String returns the reference, e.g. "env:ZAI_API_KEY", or "none".
func (r Ref) String() string {
	if r.IsZero() {
		return "none"
	}
	return string(r.source) + ":" + r.name
}

// MarshalText writes the reference (never the secret), so a configuration
// encoded as JSON shows which credential a provider uses.
func (r Ref) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// GoString keeps %#v as safe as %v.
func (r Ref) GoString() string { return fmt.Sprintf("credref.Ref(%q)", r.String()) }
