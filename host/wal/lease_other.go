//go:build !unix

package wal

import (
	"errors"
	"fmt"
	"runtime"
)

type lease struct{}

// acquireLease refuses to open a log where no writer lease exists, rather
// than letting two writers append to one file.
func acquireLease(path string) (*lease, error) {
	return nil, fmt.Errorf("wal: writer lease for %s needs flock, not available on %s: %w", path, runtime.GOOS, errors.ErrUnsupported)
}

func (*lease) release() error { return nil }
