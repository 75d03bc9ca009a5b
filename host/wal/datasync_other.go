//go:build !linux

package wal

import "os"

// datasync flushes f to stable storage. os.File.Sync is fsync(2), and
// F_FULLFSYNC on darwin, where plain fsync does not flush the disk cache.
func datasync(f *os.File) error { return f.Sync() }
