package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/axonhq/axon/hardware/ssd1680"
	"github.com/axonhq/axon/sdk/atomicfile"
)

// The state file keeps what an E-Ink panel shows while no plugin process
// runs: the frame on the glass and where the refresh policy stands. With
// it, a new process (after the host's idle_stop, or a restart of axon)
// starts with a partial refresh instead of a full one that flashes the
// panel black and white for about 2 s.
//
// A process reads the file and removes it when configured, and writes it
// again only when it ends knowing what the glass shows (its Close). So a
// process that crashes, or that stops after a refresh failed half way,
// leaves no file, and the next one starts with a full refresh: a stale
// frame would make partial refreshes ghost until the next full one.

// glassVersion is the state file's format; another version is ignored.
const glassVersion = 1

// maxGlassFile bounds what is read: a frame in base64 and a few fields.
const maxGlassFile = 64 << 10

type glassFile struct {
	Version   int       `json:"version"`
	Panel     string    `json:"panel"` // the panel revision it was written for
	Frame     []byte    `json:"frame"` // packed, ssd1680.FrameBytes
	SinceFull int       `json:"since_full"`
	LastFull  time.Time `json:"last_full"`
}

// checkStateDir tells at Configure, rather than at the first stop, that the
// state file cannot be written: its directory must exist and be writable
// by the plugin, which in its sandbox means granted read_write.
func checkStateDir(path string) error {
	if !filepath.IsAbs(path) {
		return fmt.Errorf("state_file %q: not an absolute path", path)
	}
	if fi, err := os.Lstat(path); err == nil && !fi.Mode().IsRegular() {
		return fmt.Errorf("state_file %q: not a regular file", path)
	}
	dir := filepath.Dir(path)
	probe, err := os.CreateTemp(dir, ".epd-probe-*")
	if err != nil {
		return fmt.Errorf("state_file %q: cannot write in %s (create it and grant it read_write in the display block): %w", path, dir, err)
	}
	probe.Close()
	return os.Remove(probe.Name())
}

// takeGlass reads the state file for panel and removes it; checkStateDir
// has made sure that path is no directory. It reports false, with no
// error, when there is no file; an unusable file is removed too, and its
// error says why it was not used.
func takeGlass(path, panel string) (ssd1680.Glass, bool, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return ssd1680.Glass{}, false, nil
	}
	if err != nil {
		return ssd1680.Glass{}, false, err
	}
	data, rerr := io.ReadAll(io.LimitReader(f, maxGlassFile+1))
	f.Close()
	// Removed before use: if this process dies, the next must not trust it.
	if err := os.Remove(path); err != nil {
		return ssd1680.Glass{}, false, fmt.Errorf("remove it before use: %w", err)
	}
	var g glassFile
	switch {
	case rerr != nil:
		return ssd1680.Glass{}, false, rerr
	case len(data) > maxGlassFile:
		return ssd1680.Glass{}, false, fmt.Errorf("larger than %d bytes", maxGlassFile)
	}
	if err := json.Unmarshal(data, &g); err != nil {
		return ssd1680.Glass{}, false, err
	}
	switch {
	case g.Version != glassVersion:
		return ssd1680.Glass{}, false, fmt.Errorf("format version %d, want %d", g.Version, glassVersion)
	case g.Panel != panel:
		return ssd1680.Glass{}, false, fmt.Errorf("written for panel %q, this one is %q", g.Panel, panel)
	}
	return ssd1680.Glass{Frame: g.Frame, SinceFull: g.SinceFull, LastFull: g.LastFull}, true, nil
}

// saveGlass writes the state file whole or not at all, durably.
func saveGlass(path, panel string, g ssd1680.Glass) error {
	data, err := json.Marshal(glassFile{Version: glassVersion, Panel: panel, Frame: g.Frame, SinceFull: g.SinceFull, LastFull: g.LastFull})
	if err != nil {
		return err
	}
	return atomicfile.Write(path, data, 0o600, true)
}
