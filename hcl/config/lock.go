package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/gohcl"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
)

// LockFileName is the lock file's name, beside the configuration file.
const LockFileName = "axon.lock.hcl"

// LockEntry pins one plugin binary.
type LockEntry struct {
	Binary string // e.g. "axon-provider-anthropic"
	SHA256 string // lower-case hex
}

// Lock is a parsed axon.lock.hcl: the sha256 of every plugin binary in use.
// The host refuses a binary whose hash differs from its pin.
type Lock struct {
	Entries []LockEntry // sorted by Binary
}

// SHA256 returns the pinned hash of binary.
func (l *Lock) SHA256(binary string) (string, bool) {
	if l == nil {
		return "", false
	}
	i := slices.IndexFunc(l.Entries, func(e LockEntry) bool { return e.Binary == binary })
	if i < 0 {
		return "", false
	}
	return l.Entries[i].SHA256, true
}

// Pin is the hash the host must enforce for b: the block's own sha256,
// which wins, else the lock's; "" when neither pins it.
func (b *PluginBlock) Pin(lock *Lock) string {
	if b.SHA256 != "" {
		return b.SHA256
	}
	sha, _ := lock.SHA256(b.Binary())
	return sha
}

// LockPath is where this configuration's lock file lives: beside the
// configuration file, or in the state directory for configurations that are
// not files.
func (c *Config) LockPath() string {
	if dir := c.Source.Dir(); dir != "" {
		return filepath.Join(dir, LockFileName)
	}
	return filepath.Join(c.Axon.StateDir, LockFileName)
}

type rawLock struct {
	Plugins []*rawLockPlugin `hcl:"plugin,block"`
}

type rawLockPlugin struct {
	Binary      string         `hcl:"binary,label"`
	SHA256      hcl.Expression `hcl:"sha256"`
	DefRange    hcl.Range      `hcl:",def_range"`
	BinaryRange hcl.Range      `hcl:"binary,label_range"`
}

var lockBinary = regexp.MustCompile(`^axon-(provider|tool|display)-[a-z0-9][a-z0-9_-]{0,63}$`)

// LoadLock reads a lock file. A missing file is an empty lock: pinning is
// optional. The returned file is for WriteDiagnostics.
func LoadLock(path string) (*Lock, map[string]*hcl.File, hcl.Diagnostics) {
	text, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &Lock{}, nil, nil
	}
	if err != nil {
		return nil, nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Cannot read the lock file", Detail: fmt.Sprintf("%v.", err)}}
	}
	f, diags := hclsyntax.ParseConfig(text, path, hcl.InitialPos)
	files := map[string]*hcl.File{path: f}
	if diags.HasErrors() {
		return nil, files, diags
	}
	var raw rawLock
	if diags := gohcl.DecodeBody(f.Body, nil, &raw); diags.HasErrors() {
		return nil, files, inSourceOrder(diags)
	}
	r := &reader{}
	lock := &Lock{}
	first := map[string]hcl.Range{}
	for _, p := range raw.Plugins {
		if !lockBinary.MatchString(p.Binary) {
			r.errorf(p.BinaryRange, "Invalid plugin binary name", "%q is not a plugin binary name such as %q.", p.Binary, "axon-provider-anthropic")
			continue
		}
		if prev, dup := first[p.Binary]; dup {
			r.errorf(p.DefRange, "Duplicate lock entry", "%s is already pinned at %s.", p.Binary, prev)
			continue
		}
		first[p.Binary] = p.DefRange
		if !r.required(p.SHA256, "sha256", p.DefRange, `sha256 = "<64 hex digits>"`) {
			continue
		}
		sha, ok := r.str(p.SHA256, "sha256")
		if !ok {
			continue
		}
		if !hexSHA256.MatchString(sha) {
			r.errorf(p.SHA256.Range(), "Invalid sha256", "A sha256 is 64 hexadecimal digits; run \"axon plugins lock\" to rewrite this file.")
			continue
		}
		lock.Entries = append(lock.Entries, LockEntry{Binary: p.Binary, SHA256: strings.ToLower(sha)})
	}
	if r.diags.HasErrors() {
		return nil, files, r.diags
	}
	slices.SortFunc(lock.Entries, func(a, b LockEntry) int { return strings.Compare(a.Binary, b.Binary) })
	return lock, files, nil
}

const lockHeader = `# axon.lock.hcl: the sha256 of every plugin binary in use, written by
# "axon plugins lock". axon refuses to start a binary whose hash differs.
# A sha256 set in a configuration block wins over this file.

`

// WriteLock writes entries to path, sorted by binary, replacing the file
// atomically.
func WriteLock(path string, entries []LockEntry) error {
	sorted := slices.Clone(entries)
	slices.SortFunc(sorted, func(a, b LockEntry) int { return strings.Compare(a.Binary, b.Binary) })
	f := hclwrite.NewEmptyFile()
	for i, e := range sorted {
		if !lockBinary.MatchString(e.Binary) {
			return fmt.Errorf("write lock: %q is not a plugin binary name", e.Binary)
		}
		if !hexSHA256.MatchString(e.SHA256) {
			return fmt.Errorf("write lock: sha256 of %s is not 64 hex digits", e.Binary)
		}
		if i > 0 && sorted[i-1].Binary == e.Binary {
			return fmt.Errorf("write lock: %s appears twice", e.Binary)
		}
		if i > 0 {
			f.Body().AppendNewline()
		}
		f.Body().AppendNewBlock("plugin", []string{e.Binary}).Body().SetAttributeValue("sha256", cty.StringVal(strings.ToLower(e.SHA256)))
	}
	text := append([]byte(lockHeader), f.Bytes()...)

	tmp, err := os.CreateTemp(filepath.Dir(path), ".axon.lock.*")
	if err != nil {
		return fmt.Errorf("write lock: %w", err)
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	if _, err := tmp.Write(text); err != nil {
		tmp.Close()
		return fmt.Errorf("write lock: %w", err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return fmt.Errorf("write lock: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("write lock: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write lock: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write lock: %w", err)
	}
	return nil
}
