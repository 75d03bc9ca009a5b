// Package atomicfile replaces a file whole or not at all: the new content
// goes to a temporary file in the same directory, which is then renamed over
// the path. It must never leave a part of the new content at the path, and
// it keeps the temporary file beside the path, since a rename is atomic only
// within one file system. It depends on the standard library alone: plugins
// use it for the files they keep (a display's frames and state), and so
// does the host.
package atomicfile

import (
	"io/fs"
	"os"
	"path/filepath"
)

// Write replaces path with data, with the permissions perm. With durable,
// the file is synced before the rename and its directory after it, so the
// new content survives a power loss once Write returns; without, a crash
// may keep the old content, but never a torn file. On an error the
// temporary file is removed and path is as it was.
func Write(path string, data []byte, perm fs.FileMode, durable bool) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil && durable {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, perm)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	if durable {
		return SyncDir(dir)
	}
	return nil
}

// SyncDir makes the entries of dir (a file just renamed into it) durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	serr := d.Sync()
	if cerr := d.Close(); serr == nil {
		serr = cerr
	}
	return serr
}
