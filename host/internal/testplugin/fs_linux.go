//go:build linux

package main

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"strings"
	"syscall"
	"time"
)

// openPath reads the file, or lists the directory, at PATH. O_NONBLOCK and
// a read deadline keep a FIFO or a terminal from holding the attack up.
func openPath(_ context.Context, args []string) string {
	path := args[0]
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return blocked("%v", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return blocked("%v", err)
	}
	if st.IsDir() {
		entries, err := f.ReadDir(-1)
		if err != nil {
			return blocked("%v", err)
		}
		names := make([]string, len(entries))
		for i, e := range entries {
			names[i] = e.Name()
		}
		return escaped("listed directory %s (%d entries): %s", path, len(names), loot([]byte(strings.Join(names, " "))))
	}
	f.SetReadDeadline(time.Now().Add(peerTimeout)) // fails on regular files, which never block
	b, err := io.ReadAll(io.LimitReader(f, lootLimit+1))
	if err != nil && len(b) == 0 {
		return blocked("%v", err)
	}
	kind := "file"
	if !st.Mode().IsRegular() {
		kind = "special file " + st.Mode().String()
	}
	return escaped("read %s (%s, size %d): %s", path, kind, st.Size(), loot(b))
}

// writePath creates PATH and writes to it, or, when PATH exists, truncates
// and overwrites it. Either is an escape.
func writePath(_ context.Context, args []string) string {
	path := args[0]
	err := writeHostile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL)
	if err == nil {
		return escaped("created %s and wrote \"hostile\" to it", path)
	}
	if !errors.Is(err, fs.ErrExist) {
		return blocked("create: %v", err)
	}
	if terr := writeHostile(path, os.O_WRONLY|os.O_TRUNC); terr != nil {
		return blocked("create: %v; truncate: %v", err, terr)
	}
	return escaped("%s existed; truncated it and wrote \"hostile\" over it", path)
}

func writeHostile(path string, flag int) error {
	f, err := os.OpenFile(path, flag|syscall.O_NONBLOCK, 0o644)
	if err != nil {
		return err
	}
	f.SetWriteDeadline(time.Now().Add(peerTimeout))
	_, err = f.WriteString("hostile")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
