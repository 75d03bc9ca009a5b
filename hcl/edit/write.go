package edit

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// WriteFile replaces the file at path with src: it first copies the file
// as it is to a backup beside it, path.20261202T104500Z.bak (now in UTC;
// .1.bak, .2.bak… when that name is taken), then writes src to a temporary
// file in the same directory with the same mode, syncs it, renames it over
// path and syncs the directory. It returns the backup's path. On error
// path is as it was and neither the temporary file nor the backup is left,
// save one case: the rename done, syncing the directory failed; then the
// error comes with the backup's path.
//
// path must be a regular file, not a symbolic link: the file replaced is
// the one named, never one a link points to. WriteFile refuses src that is
// not HCL, but it does not run the loader: call Validate first.
func WriteFile(path string, src []byte, now time.Time) (backup string, err error) {
	return writer{}.writeFile(path, src, now)
}

// writer holds what tests replace to fail a write part way through.
type writer struct {
	write  func(f *os.File, b []byte) (int, error) // (*os.File).Write when nil
	rename func(from, to string) error             // os.Rename when nil
}

func (w writer) writeFile(path string, src []byte, now time.Time) (backup string, err error) {
	if _, diags := hclsyntax.ParseConfig(src, path, hcl.InitialPos); diags.HasErrors() {
		return "", fmt.Errorf("refusing to write %s: the new text does not parse: %w", path, diags)
	}
	info, err := os.Lstat(path)
	if err != nil {
		return "", err
	}
	if !info.Mode().IsRegular() {
		return "", fmt.Errorf("refusing to write %s: not a regular file (%s)", path, info.Mode().Type())
	}
	old, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	mode := info.Mode().Perm()
	dir := filepath.Dir(path)

	bak, err := w.backup(path, old, mode, now)
	if err != nil {
		return "", err
	}
	renamed := false
	defer func() {
		if err != nil && !renamed {
			os.Remove(bak)
		}
	}()

	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return "", err
	}
	defer func() {
		if err != nil && !renamed {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err = tmp.Chmod(mode); err != nil {
		return "", err
	}
	if err = w.writeAll(tmp, src); err != nil {
		return "", fmt.Errorf("writing %s: %w", tmp.Name(), err)
	}
	if err = tmp.Sync(); err != nil {
		return "", err
	}
	if err = tmp.Close(); err != nil {
		return "", err
	}
	if err = w.doRename(tmp.Name(), path); err != nil {
		return "", err
	}
	renamed = true
	// The rename is done: from here path holds src, so an error syncing the
	// directory is reported but the backup is kept.
	if serr := syncDir(dir); serr != nil {
		return bak, fmt.Errorf("%s written, but syncing %s failed: %w", path, dir, serr)
	}
	return bak, nil
}

// backup writes old to the first free backup name; O_EXCL makes "free"
// hold even against another writer, and never writes through a link.
func (w writer) backup(path string, old []byte, mode fs.FileMode, now time.Time) (string, error) {
	stamp := path + "." + now.UTC().Format("20060102T150405Z")
	for n := 0; n < 100; n++ {
		name := stamp + ".bak"
		if n > 0 {
			name = stamp + "." + strconv.Itoa(n) + ".bak"
		}
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("backing up %s: %w", path, err)
		}
		err = f.Chmod(mode) // the umask may have narrowed it
		if err == nil {
			err = w.writeAll(f, old)
		}
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(name)
			return "", fmt.Errorf("backing up %s: %w", path, err)
		}
		return name, nil
	}
	return "", fmt.Errorf("backing up %s: 100 backups named %s.*.bak already exist", path, stamp)
}

func (w writer) writeAll(f *os.File, b []byte) error {
	write := w.write
	if write == nil {
		write = (*os.File).Write
	}
	n, err := write(f, b)
	if err == nil && n < len(b) {
		err = fmt.Errorf("short write: %d of %d bytes", n, len(b))
	}
	return err
}

func (w writer) doRename(from, to string) error {
	if w.rename != nil {
		return w.rename(from, to)
	}
	return os.Rename(from, to)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}
