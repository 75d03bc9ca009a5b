package session

import (
	"crypto/sha256"
	"encoding/base32"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Key addresses a session: the project it works on, the harness that drives
// it (a CLI, an editor, an outer agent) and the session's own name. The
// same triple always names the same session, on any run of the host.
type Key struct {
	ProjectRoot string `json:"project_root"`
	Harness     string `json:"harness"`
	Session     string `json:"session"`
}

// Limits of a key's parts, in bytes.
const (
	maxProjectRoot = 4096
	maxKeyPart     = 256
)

// Validate reports a key the host refuses: no session name, a part that is
// too long, not UTF-8 or holds a NUL byte (the separator of ID's hash).
func (k Key) Validate() error {
	if k.Session == "" {
		return invalidf("session", "is required")
	}
	for _, p := range []struct {
		field, v string
		max      int
	}{{"project_root", k.ProjectRoot, maxProjectRoot}, {"harness", k.Harness, maxKeyPart}, {"session", k.Session, maxKeyPart}} {
		switch {
		case len(p.v) > p.max:
			return invalidf(p.field, "is %d bytes, at most %d", len(p.v), p.max)
		case !utf8.ValidString(p.v) || strings.ContainsRune(p.v, 0):
			return invalidf(p.field, "must be UTF-8 text without NUL bytes")
		}
	}
	return nil
}

// ID is the session's stable identifier and directory name: the first 26
// characters of the lower-case base32 SHA-256 of the three parts (130 bits).
func (k Key) ID() string {
	h := sha256.Sum256([]byte(k.ProjectRoot + "\x00" + k.Harness + "\x00" + k.Session))
	return strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(h[:]))[:idLen]
}

const idLen = 26

// validID reports whether id has the shape ID produces, so that a client's
// id can be joined to a path.
func validID(id string) bool {
	if len(id) != idLen {
		return false
	}
	for _, c := range []byte(id) {
		if (c < 'a' || c > 'z') && (c < '2' || c > '7') {
			return false
		}
	}
	return true
}

func (k Key) String() string {
	return fmt.Sprintf("%s|%s|%s", k.ProjectRoot, k.Harness, k.Session)
}
