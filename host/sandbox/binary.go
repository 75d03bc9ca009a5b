package sandbox

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
)

// ErrChecksum is returned when a binary does not match its sha256 pin.
var ErrChecksum = errors.New("plugin binary does not match its sha256 pin")

// OpenBinary opens a plugin executable and checks the pin on that very
// descriptor. The caller executes the descriptor, never the path again, so
// a file swapped in after the check is never run. (Changing the opened file
// in place needs write access to it, which no plugin has: plugin
// directories are outside every jail.)
func OpenBinary(path string, pin []byte) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	if pin != nil {
		sum, err := digest(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("checksum %s: %w", path, err)
		}
		if !bytes.Equal(sum, pin) {
			f.Close()
			return nil, ErrChecksum
		}
	}
	return f, nil
}

// Digest returns the sha256 of the file at path: the value a plugin block's
// sha256 pin or the lock file holds for it (hex-encoded there).
func Digest(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return digest(f)
}

func digest(r io.Reader) ([]byte, error) {
	h := sha256.New()
	if _, err := io.Copy(h, r); err != nil {
		return nil, err
	}
	return h.Sum(nil), nil
}
