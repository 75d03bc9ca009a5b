package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/axonhq/axon/sdk"
)

// infoCache keeps, in the state directory, what each plugin binary
// declared (its Info: kind, SDK API versions, schema) and, when a block
// pins it, its sha256, so that `axon serve` checks every block as a start
// would without starting a plugin. An entry holds while the binary's path,
// size and modification time are unchanged (and, once a block pins the
// binary, holds its sha256); otherwise the binary is inspected again, and
// hashed when pinned.
//
// It is for early diagnostics only, never for trust: a binary can be
// swapped under an unchanged size and mtime. The supervisor still checks
// the sha256 pin on the very file it executes, at every launch, and checks
// the live Info again before Configure.
type infoCache struct{ dir string }

// infoCacheFormat is the entry layout; an entry of another format is a miss.
const infoCacheFormat = 3

func newInfoCache(stateDir string) infoCache {
	return infoCache{dir: filepath.Join(stateDir, "plugin-info")}
}

// binaryStat is what an entry is keyed by besides the path.
type binaryStat struct {
	Size  int64 `json:"size"`
	MTime int64 `json:"mtime_ns"`
}

func statOf(fi os.FileInfo) binaryStat {
	return binaryStat{Size: fi.Size(), MTime: fi.ModTime().UnixNano()}
}

// infoEntry is one cache file.
type infoEntry struct {
	Format int `json:"format"`
	Path   string
	binaryStat
	SHA256 string     `json:"sha256"`
	Info   cachedInfo `json:"info"`
}

// file is where the entry of the binary at path lives: one file per binary,
// so that binaries inspected in parallel never write the same file.
func (c infoCache) file(path string) string {
	sum := sha256.Sum256([]byte(path))
	return filepath.Join(c.dir, fmt.Sprintf("%s-%s.json", filepath.Base(path), hex.EncodeToString(sum[:8])))
}

// lookup returns the sha256 and Info kept for the binary at path, if its
// entry matches st. The sha256 is "" in an entry made while no block
// pinned the binary.
func (c infoCache) lookup(path string, st binaryStat) (string, sdk.Info, bool) {
	text, err := os.ReadFile(c.file(path))
	if err != nil {
		return "", sdk.Info{}, false
	}
	var e infoEntry
	if json.Unmarshal(text, &e) != nil || e.Format != infoCacheFormat || e.Path != path || e.binaryStat != st {
		return "", sdk.Info{}, false
	}
	return e.SHA256, e.Info.info(), true
}

// store writes the entry of the binary at path atomically: a reader sees
// the old entry or the new one, never part of one.
func (c infoCache) store(path string, st binaryStat, sha string, info sdk.Info) error {
	text, err := json.MarshalIndent(infoEntry{Format: infoCacheFormat, Path: path, binaryStat: st, SHA256: sha, Info: cacheInfo(info)}, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(c.dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(c.dir, ".entry-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(text)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), c.file(path))
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// hashBinary returns the sha256 of the binary at path and the stat of the
// file it read.
func hashBinary(path string) (string, binaryStat, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", binaryStat{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", binaryStat{}, err
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", binaryStat{}, err
	}
	return hex.EncodeToString(h.Sum(nil)), statOf(fi), nil
}

// cachedInfo is sdk.Info as the cache writes it. It is its own type because
// a json.RawMessage default does not survive encoding/json as the plugin
// sent it (an absent default would come back as the literal null).
type cachedInfo struct {
	Name        string            `json:"name"`
	Kind        string            `json:"kind"`
	Version     string            `json:"version"`
	APIVersions []string          `json:"api_versions"`
	Config      []cachedAttribute `json:"config"`
	AuthScheme  string            `json:"auth_scheme,omitempty"`
	AuthName    string            `json:"auth_name,omitempty"`
	Prefill     bool              `json:"prefill,omitempty"`
	Output      bool              `json:"output,omitempty"`
	InlineMedia bool              `json:"inline_media,omitempty"`
	Options     []string          `json:"options"` // null: the plugin does not say; []: none
	Lacks       []string          `json:"lacks,omitempty"`
}

type cachedAttribute struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Required    bool   `json:"required,omitempty"`
	Default     string `json:"default,omitempty"` // JSON text; "" is no default
	Description string `json:"description,omitempty"`
}

func cacheInfo(i sdk.Info) cachedInfo {
	c := cachedInfo{
		Name: i.Name, Kind: string(i.Kind), Version: i.Version, APIVersions: i.APIVersions,
		AuthScheme: string(i.Auth.Scheme), AuthName: i.Auth.Name, Prefill: i.Prefill,
		Output: i.Output, InlineMedia: i.InlineMedia, Options: i.Options,
		Lacks: i.Lacks,
	}
	for _, a := range i.Config.Attributes {
		c.Config = append(c.Config, cachedAttribute{
			Name: a.Name, Type: a.Type, Required: a.Required, Default: string(a.Default), Description: a.Description,
		})
	}
	return c
}

func (c cachedInfo) info() sdk.Info {
	i := sdk.Info{
		Name: c.Name, Kind: sdk.Kind(c.Kind), Version: c.Version, APIVersions: c.APIVersions,
		Auth:    sdk.Auth{Scheme: sdk.AuthScheme(c.AuthScheme), Name: c.AuthName},
		Prefill: c.Prefill, Output: c.Output, InlineMedia: c.InlineMedia, Options: c.Options,
		Lacks: c.Lacks,
	}
	for _, a := range c.Config {
		attr := sdk.Attribute{Name: a.Name, Type: a.Type, Required: a.Required, Description: a.Description}
		if a.Default != "" {
			attr.Default = json.RawMessage(a.Default)
		}
		i.Config.Attributes = append(i.Config.Attributes, attr)
	}
	return i
}
