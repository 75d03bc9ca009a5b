package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// SourceKind says where a configuration came from.
type SourceKind int

const (
	SourceFlag      SourceKind = iota + 1 // --config FILE
	SourceEnv                             // $AXON_CONFIG
	SourceUser                            // ~/.config/axon/axon.hcl
	SourceAxonChain                       // generated from $AXON_CHAIN
	SourceEmbedded                        // the default built into the binary
	SourceText                            // bytes handed to Loader.Parse
)

// Source is the configuration that Load used.
type Source struct {
	Kind SourceKind
	Path string // the file read; "" for SourceEmbedded and SourceAxonChain
}

// String says, for a person, which configuration is in use.
func (s Source) String() string {
	switch s.Kind {
	case SourceFlag:
		return s.Path + " (--config)"
	case SourceEnv:
		return s.Path + " ($AXON_CONFIG)"
	case SourceUser:
		return s.Path
	case SourceAxonChain:
		return "the chain in $AXON_CHAIN"
	case SourceEmbedded:
		return "the built-in default (local Ollama, no key)"
	case SourceText:
		return s.Path
	}
	return "unknown source"
}

// Dir is the directory relative paths in the configuration are resolved
// against; "" when the configuration is not a file.
func (s Source) Dir() string {
	if s.Path == "" {
		return ""
	}
	return filepath.Dir(s.Path)
}

const (
	envConfig = "AXON_CONFIG"
	envChain  = "AXON_CHAIN"
)

// Resolve picks the configuration, first hit wins: flag (the --config
// value), $AXON_CONFIG, ~/.config/axon/axon.hcl, then the built-in default
// (the $AXON_CHAIN chain when that is set). A file named by flag or
// $AXON_CONFIG must exist.
func (l *Loader) Resolve(flag string) (Source, error) {
	if flag != "" {
		p, err := l.configFile(flag)
		if err != nil {
			return Source{}, fmt.Errorf("--config: %w", err)
		}
		return Source{Kind: SourceFlag, Path: p}, nil
	}
	if v, ok := l.lookupEnv(envConfig); ok && v != "" {
		p, err := l.configFile(v)
		if err != nil {
			return Source{}, fmt.Errorf("$%s: %w", envConfig, err)
		}
		return Source{Kind: SourceEnv, Path: p}, nil
	}
	if l.opts.HomeDir != "" {
		p := filepath.Join(l.opts.HomeDir, ".config", "axon", "axon.hcl")
		_, err := os.Stat(p)
		switch {
		case err == nil:
			if _, err := l.configFile(p); err != nil {
				return Source{}, err
			}
			return Source{Kind: SourceUser, Path: p}, nil
		case !errors.Is(err, fs.ErrNotExist):
			return Source{}, fmt.Errorf("read %s: %w", p, err)
		}
	}
	if _, ok := l.lookupEnv(envChain); ok {
		return Source{Kind: SourceAxonChain}, nil
	}
	return Source{Kind: SourceEmbedded}, nil
}

// configFile expands ~, makes p absolute (paths relative to the file,
// such as plugin_dir = "../bin", must stay valid for plugins, which the
// sandbox starts from /) and checks that p is a regular file.
func (l *Loader) configFile(p string) (string, error) {
	p, err := expandPath(p, "", l.opts.HomeDir)
	if err != nil {
		return "", err
	}
	if p, err = filepath.Abs(p); err != nil {
		return "", err
	}
	st, err := os.Stat(p)
	if err != nil {
		return "", err
	}
	if !st.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not a regular file", p)
	}
	return p, nil
}
