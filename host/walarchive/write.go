package walarchive

import (
	"archive/tar"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Source is one log to archive: its manifest entry, digest and size
// included, and the file to copy, which must not change meanwhile (the
// caller holds its writer lease). Write hashes the bytes it copies again
// and fails if they differ from the entry.
type Source struct {
	Entry Entry
	Path  string
}

// Write seals srcs into a new container in dir and returns its path:
// written under a temporary name, synced, made read-only, renamed to
// <manifest digest>.tar and the directory synced. hit, when set, is called
// after the sync (with "archive_container_synced") and after the rename
// ("archive_container_renamed"), for crash tests.
func Write(dir string, created time.Time, srcs []Source, hit func(string)) (string, error) {
	if hit == nil {
		hit = func(string) {}
	}
	if len(srcs) == 0 {
		return "", errors.New("walarchive: nothing to archive")
	}
	m := Manifest{Version: version, Created: created.UTC().Round(0)}
	for _, s := range srcs {
		m.Entries = append(m.Entries, s.Entry)
	}
	mb, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(mb)
	name := hex.EncodeToString(sum[:]) + Ext
	if err := makeDir(dir); err != nil {
		return "", err
	}
	tmp := filepath.Join(dir, tmpPrefix+name)
	os.Remove(tmp) // a crashed Write of the same container
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", fmt.Errorf("walarchive: %w", err)
	}
	err = writeTar(f, m.Created, mb, srcs)
	if err == nil {
		err = f.Sync()
	}
	if err == nil {
		err = f.Chmod(0o400)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("walarchive: write %s: %w", tmp, err)
	}
	hit("archive_container_synced")
	path := filepath.Join(dir, name)
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("walarchive: %w", err)
	}
	hit("archive_container_renamed")
	return path, SyncDir(dir)
}

func writeTar(w io.Writer, created time.Time, manifest []byte, srcs []Source) error {
	tw := tar.NewWriter(w)
	hdr := func(name string, size int64, mod time.Time) *tar.Header {
		return &tar.Header{Name: name, Size: size, Mode: 0o400, ModTime: mod.Truncate(time.Second), Typeflag: tar.TypeReg, Format: tar.FormatUSTAR}
	}
	if err := tw.WriteHeader(hdr(ManifestName, int64(len(manifest)), created)); err != nil {
		return err
	}
	if _, err := tw.Write(manifest); err != nil {
		return err
	}
	for _, s := range srcs {
		if err := copyLog(tw, hdr(s.Entry.Session+logExt, s.Entry.Size, s.Entry.LastWrite), s); err != nil {
			return err
		}
	}
	return tw.Close()
}

// copyLog copies one log into the container, checking its bytes against
// the entry made from them.
func copyLog(tw *tar.Writer, h *tar.Header, s Source) error {
	f, err := os.Open(s.Path)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := tw.WriteHeader(h); err != nil {
		return err
	}
	hash := sha256.New()
	n, err := io.Copy(io.MultiWriter(tw, hash), io.LimitReader(f, s.Entry.Size))
	if err != nil {
		return err
	}
	if more, _ := f.Read(make([]byte, 1)); more > 0 {
		n++ // longer than the entry says
	}
	if got := hex.EncodeToString(hash.Sum(nil)); n != s.Entry.Size || got != s.Entry.SHA256 {
		return fmt.Errorf("%s changed while it was archived (%d bytes, sha256 %s; the entry says %d, %s)", s.Path, n, got, s.Entry.Size, s.Entry.SHA256)
	}
	return nil
}

// Digest is the SHA-256 and size of the file at path, as an Entry records
// them.
func Digest(path string) (string, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return "", 0, err
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

// List returns the containers of dir, by name; a missing dir has none.
// Temporary files of an unfinished Write are not containers.
func List(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("walarchive: %w", err)
	}
	var out []string
	for _, e := range ents {
		if e.Type().IsRegular() && IsContainer(e.Name()) {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out, nil
}

// Clean removes the temporary files crashed Writes left in dir. The caller
// makes sure no Write is running in dir.
func Clean(dir string) error {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("walarchive: %w", err)
	}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), tmpPrefix) {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("walarchive: %w", err)
			}
		}
	}
	return nil
}

// Remove deletes a container (every entry of it superseded) durably.
func Remove(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("walarchive: %w", err)
	}
	return SyncDir(filepath.Dir(path))
}

func makeDir(dir string) error {
	if _, err := os.Stat(dir); err == nil {
		return nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("walarchive: %w", err)
	}
	return SyncDir(filepath.Dir(dir))
}

// SyncDir makes dir's entries durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("walarchive: %w", err)
	}
	serr := d.Sync()
	cerr := d.Close()
	if serr != nil {
		return fmt.Errorf("walarchive: sync %s: %w", dir, serr)
	}
	return cerr
}
