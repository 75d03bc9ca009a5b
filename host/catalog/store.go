package catalog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/axonhq/axon/sdk/atomicfile"
)

// FileName is the store's file in the state directory.
const FileName = "catalog.json"

// fileVersion is the schema version of the store's file.
const fileVersion = 1

// Bounds on what a plugin's answer may hold, and on the file.
const (
	maxModels   = 4096
	maxIDBytes  = 256
	maxFileSize = 16 << 20
)

// Answer is what a provider plugin said of itself: its Models answer and
// its Info's prefill.
type Answer struct {
	Models  []Model   `json:"models,omitempty"`
	Prefill *bool     `json:"prefill,omitempty"`
	At      time.Time `json:"at"` // when this answer (as it differs from the one before) was learned
}

// Model is one model of a plugin's answer; a zero count is unknown.
type Model struct {
	ID              string `json:"id"`
	ContextWindow   int64  `json:"context_window,omitempty"`
	MaxOutputTokens int64  `json:"max_output_tokens,omitempty"`
}

func (a Answer) same(b Answer) bool {
	return slices.Equal(a.Models, b.Models) && ((a.Prefill == nil) == (b.Prefill == nil)) && (a.Prefill == nil || *a.Prefill == *b.Prefill)
}

func (a Answer) check() error {
	if len(a.Models) > maxModels {
		return fmt.Errorf("%d models, at most %d", len(a.Models), maxModels)
	}
	for _, m := range a.Models {
		switch {
		case m.ID == "" || len(m.ID) > maxIDBytes:
			return fmt.Errorf("a model id of %d bytes, want 1 to %d", len(m.ID), maxIDBytes)
		case m.ContextWindow < 0 || m.MaxOutputTokens < 0:
			return fmt.Errorf("model %q: a negative token count", m.ID)
		}
	}
	return nil
}

// stored is one provider block's answer, with the digest of the block it
// came from (Digest): an answer of a block since reconfigured is not used.
type stored struct {
	Block string `json:"block"`
	Answer
}

type file struct {
	Version   int               `json:"version"`
	Providers map[string]stored `json:"providers"`
}

// Store keeps the plugins' last answers, in memory and in its file
// (written whole, to a temporary file that is synced and renamed over
// it). It is safe for concurrent use; one Store serves every generation
// of the configuration.
type Store struct {
	path    string // "" keeps the answers in memory only
	mu      sync.Mutex
	answers map[string]stored
}

// OpenStore reads the store at path; "" is a store in memory only. A
// missing file is an empty store. A file that cannot be read or is not a
// store of this version is ignored: the store starts empty, the error
// says why (the caller logs it as a warning), and the next Learn replaces
// the file. The returned store is never nil.
func OpenStore(path string) (*Store, error) {
	s := &Store{path: path, answers: map[string]stored{}}
	if path == "" {
		return s, nil
	}
	answers, err := readFile(path)
	if err != nil {
		return s, fmt.Errorf("catalog: %s ignored: %w", path, err)
	}
	s.answers = answers
	return s, nil
}

func readFile(path string) (map[string]stored, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]stored{}, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxFileSize {
		return nil, fmt.Errorf("larger than %d bytes", maxFileSize)
	}
	var fl file
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&fl); err != nil {
		return nil, fmt.Errorf("not a catalog file: %w", err)
	}
	if fl.Version != fileVersion {
		return nil, fmt.Errorf("version %d, want %d", fl.Version, fileVersion)
	}
	for name, a := range fl.Providers {
		if err := a.check(); err != nil {
			return nil, fmt.Errorf("provider %q: %w", name, err)
		}
	}
	if fl.Providers == nil {
		fl.Providers = map[string]stored{}
	}
	return fl.Providers, nil
}

// answer is provider's last answer, when it came from a block of digest
// block.
func (s *Store) answer(provider, block string) (Answer, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.answers[provider]
	if !ok || a.Block != block {
		return Answer{}, false
	}
	return a.Answer, true
}

// Learn records provider's answer, from a block of digest block. An
// answer that says what the last one said changes nothing and writes
// nothing; a new one is written to the file before Learn returns. An
// answer out of bounds (too many models, an empty or overlong id, a
// negative count) is refused and the last one kept. A failed write keeps
// the answer in memory and returns the error.
func (s *Store) Learn(provider, block string, a Answer) error {
	if err := a.check(); err != nil {
		return fmt.Errorf("catalog: the answer of provider %q refused: %w", provider, err)
	}
	a.Models = slices.Clone(a.Models)
	s.mu.Lock()
	defer s.mu.Unlock()
	if old, ok := s.answers[provider]; ok && old.Block == block && old.same(a) {
		return nil
	}
	s.answers[provider] = stored{Block: block, Answer: a}
	if s.path == "" {
		return nil
	}
	b, err := json.MarshalIndent(file{Version: fileVersion, Providers: s.answers}, "", "  ")
	if err != nil {
		return fmt.Errorf("catalog: encode: %w", err)
	}
	return writeAtomic(s.path, append(b, '\n'))
}

// writeAtomic replaces path with b, durably: a crash leaves the old file or
// the new one, never a part.
func writeAtomic(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("catalog: %w", err)
	}
	if err := atomicfile.Write(path, b, 0o600, true); err != nil {
		return fmt.Errorf("catalog: write %s: %w", path, err)
	}
	return nil
}
