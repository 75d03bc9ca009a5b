package cli

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
)

func newToken(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "token",
		Short: "Print the front door's bearer token, creating it (mode 0600) if needed",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			cfg, _, err := g.load()
			if err != nil {
				return err
			}
			tok, err := ensureToken(cfg.Axon.TokenFile)
			if err != nil {
				return err
			}
			fmt.Fprintln(g.stdout, tok)
			return nil
		},
	}
}

// readToken returns the token in path, or "" when there is none.
func readToken(path string) (string, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("token file %s: %w", path, err)
	}
	return strings.TrimSpace(string(b)), nil
}

// ensureToken reads the token, or creates one: 32 random bytes, hex.
func ensureToken(path string) (string, error) {
	if tok, err := readToken(path); err != nil || tok != "" {
		return tok, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", err
	}
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	tok := hex.EncodeToString(b)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", fmt.Errorf("create token file: %w", err)
	}
	if _, err := f.WriteString(tok + "\n"); err != nil {
		f.Close()
		return "", err
	}
	return tok, f.Close()
}
