package config

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// Credential is a reference to a secret, never the secret: the host resolves
// it lazily, only when it calls the provider. Its String form is the
// reference itself ("env:ZAI_API_KEY", "file:/home/pi/.config/axon/zai.key"),
// which is safe to print.
type Credential struct {
	Source CredentialSource
	Name   string // environment variable name, or absolute file path
}

// CredentialSource says where the host reads a credential from.
type CredentialSource string

const (
	CredentialNone CredentialSource = ""
	CredentialEnv  CredentialSource = "env"
	CredentialFile CredentialSource = "file"
)

// IsZero reports whether no credential is configured.
func (c Credential) IsZero() bool { return c.Source == CredentialNone }

// String returns the reference, e.g. "env:ZAI_API_KEY", or "none".
func (c Credential) String() string {
	if c.IsZero() {
		return "none"
	}
	return string(c.Source) + ":" + c.Name
}

// GoString keeps %#v as safe as %v.
func (c Credential) GoString() string { return fmt.Sprintf("config.Credential(%q)", c.String()) }

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// errLiteralCredential never includes the value: it may be a pasted secret.
var errLiteralCredential = errors.New(`a credential must be a reference built with env("NAME") or file("PATH"), not a literal value`)

// ParseCredential parses a reference as produced by env() and file().
// Its errors never repeat the input, which may be a pasted secret.
func ParseCredential(ref string) (Credential, error) {
	source, name, ok := strings.Cut(ref, ":")
	if !ok {
		return Credential{}, errLiteralCredential
	}
	switch CredentialSource(source) {
	case CredentialEnv:
		if !envName.MatchString(name) {
			return Credential{}, errors.New(`"env:" must be followed by an environment variable name (letters, digits and _)`)
		}
	case CredentialFile:
		if name == "" {
			return Credential{}, errors.New(`"file:" must be followed by a path`)
		}
	default:
		return Credential{}, errLiteralCredential
	}
	return Credential{Source: CredentialSource(source), Name: name}, nil
}
