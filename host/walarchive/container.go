package walarchive

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// Names inside and of a container.
const (
	ManifestName = "manifest.json"
	Ext          = ".tar"
	tmpPrefix    = ".tmp-"
	logExt       = ".wal"
	version      = 1

	// maxManifest bounds the manifest read before its digest is checked.
	maxManifest = 16 << 20
)

// Entry describes one archived log.
type Entry struct {
	Session   string    `json:"session"`
	Lineage   string    `json:"lineage"` // the log's header lineage id
	Records   uint64    `json:"records"` // its last wal_seq
	Size      int64     `json:"size"`    // bytes
	SHA256    string    `json:"sha256"`  // of the file's bytes
	LastWrite time.Time `json:"last_write"`
}

// Manifest is a container's first entry.
type Manifest struct {
	Version int       `json:"version"`
	Created time.Time `json:"created"`
	Entries []Entry   `json:"entries"`
}

// Container is a sealed container whose manifest has been read and
// checked against its name.
type Container struct {
	Path     string
	Manifest Manifest
	at       map[string]int64 // offset of each log's bytes, found by Open
}

// Name is the container's file name, <manifest digest>.tar.
func (c *Container) Name() string { return filepath.Base(c.Path) }

// Entry returns the manifest entry of session.
func (c *Container) Entry(session string) (Entry, bool) {
	for _, e := range c.Manifest.Entries {
		if e.Session == session {
			return e, true
		}
	}
	return Entry{}, false
}

// DigestError is an archived log whose bytes do not hash to its manifest
// digest (or have another size): the container is damaged.
type DigestError struct {
	Container, Session string
	Want, Got          string // sha256 hex: the manifest's, the bytes'
}

func (e *DigestError) Error() string {
	return fmt.Sprintf("archive %s: session %s: digest mismatch: the manifest says sha256 %s, the archived log hashes to %s (the container is damaged; nothing was restored from it)",
		e.Container, e.Session, e.Want, e.Got)
}

// ErrDamaged matches every error about a container's own bytes: a name
// that is not its manifest's digest, a bad manifest, entries out of order,
// a digest mismatch.
var ErrDamaged = errors.New("walarchive: damaged container")

// Is makes a DigestError match ErrDamaged.
func (e *DigestError) Is(target error) bool { return target == ErrDamaged }

func damaged(path, format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s", ErrDamaged, path, fmt.Sprintf(format, args...))
}

var (
	digestName = regexp.MustCompile(`^[0-9a-f]{64}\.tar$`)
	hexDigest  = regexp.MustCompile(`^[0-9a-f]{64}$`)
)

// IsContainer reports whether name is a sealed container's file name.
func IsContainer(name string) bool { return digestName.MatchString(name) }

// Open reads the manifest of the container at path and checks it against
// the container's name.
func Open(path string) (*Container, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("walarchive: %w", err)
	}
	defer f.Close()
	c, tr, err := readManifest(f, path)
	if err != nil {
		return nil, err
	}
	// Where each log starts, so that Read need not walk the container:
	// tar.Reader reads whole blocks and no further, so the file offset
	// after Next is the start of the entry's data.
	c.at = map[string]int64{}
	for range c.Manifest.Entries {
		h, err := tr.Next()
		if err != nil {
			return nil, damaged(path, "fewer entries than the manifest lists: %v", err)
		}
		off, err := f.Seek(0, io.SeekCurrent)
		if err != nil {
			return nil, fmt.Errorf("walarchive: %w", err)
		}
		if id, ok := strings.CutSuffix(h.Name, logExt); ok {
			c.at[id] = off
		}
	}
	return c, nil
}

func readManifest(f io.Reader, path string) (*Container, *tar.Reader, error) {
	name := filepath.Base(path)
	if !IsContainer(name) {
		return nil, nil, damaged(path, "not a container name (<sha256 of the manifest>%s)", Ext)
	}
	tr := tar.NewReader(f)
	h, err := tr.Next()
	if err != nil {
		return nil, nil, damaged(path, "no manifest: %v", err)
	}
	if h.Name != ManifestName || h.Size > maxManifest {
		return nil, nil, damaged(path, "first entry is %q (%d bytes), want %s", h.Name, h.Size, ManifestName)
	}
	b, err := io.ReadAll(tr)
	if err != nil {
		return nil, nil, damaged(path, "read manifest: %v", err)
	}
	sum := sha256.Sum256(b)
	if got := hex.EncodeToString(sum[:]) + Ext; got != name {
		return nil, nil, damaged(path, "manifest hashes to %s, not the container's name", strings.TrimSuffix(got, Ext))
	}
	var m Manifest
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return nil, nil, damaged(path, "manifest: %v", err)
	}
	if m.Version != version {
		return nil, nil, damaged(path, "manifest version %d (this build reads %d)", m.Version, version)
	}
	seen := map[string]bool{}
	for _, e := range m.Entries {
		if e.Session == "" || strings.ContainsAny(e.Session, `/\`) || seen[e.Session] || !hexDigest.MatchString(e.SHA256) || e.Size < 0 {
			return nil, nil, damaged(path, "manifest entry %+v is malformed or repeated", e)
		}
		seen[e.Session] = true
	}
	return &Container{Path: path, Manifest: m}, tr, nil
}

// Read returns the bytes of session's archived log, checked against the
// manifest's size and digest (a *DigestError when they differ).
func (c *Container) Read(session string) ([]byte, error) {
	want, ok := c.Entry(session)
	if !ok {
		return nil, fmt.Errorf("walarchive: %s holds no session %s", c.Path, session)
	}
	off, ok := c.at[session]
	if !ok {
		return nil, damaged(c.Path, "no entry %s%s", session, logExt)
	}
	f, err := os.Open(c.Path)
	if err != nil {
		return nil, fmt.Errorf("walarchive: %w", err)
	}
	defer f.Close()
	b := make([]byte, want.Size)
	if _, err := f.ReadAt(b, off); err != nil {
		return nil, damaged(c.Path, "read %s%s: %v", session, logExt, err)
	}
	return checkDigest(b, c.Path, want)
}

// readEntry reads one log entry and checks it against its manifest entry.
func readEntry(tr *tar.Reader, h *tar.Header, path string, want Entry) ([]byte, error) {
	if h.Size != want.Size {
		return nil, damaged(path, "entry %s is %d bytes, the manifest says %d", h.Name, h.Size, want.Size)
	}
	b, err := io.ReadAll(tr)
	if err != nil {
		return nil, damaged(path, "read %s: %v", h.Name, err)
	}
	return checkDigest(b, path, want)
}

// checkDigest returns b when it hashes to want's digest.
func checkDigest(b []byte, path string, want Entry) ([]byte, error) {
	sum := sha256.Sum256(b)
	if got := hex.EncodeToString(sum[:]); got != want.SHA256 {
		return nil, &DigestError{Container: path, Session: want.Session, Want: want.SHA256, Got: got}
	}
	return b, nil
}
