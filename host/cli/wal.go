package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/spf13/cobra"

	"github.com/axonhq/axon/host/daemon"
	"github.com/axonhq/axon/host/wal"
)

func newWAL(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "wal",
		Short: "Inspect session write-ahead logs",
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "verify FILE|SESSION-ID",
		Short: "Check a session WAL without changing it",
		Long: "verify reads FILE (e.g. <state_dir>/sessions/<id>/wal), or the WAL of the session whose ID " +
			"`axon sessions` prints, as opening it would, without the " +
			"writer lease and without changing it. It exits 0 for a clean log or one with a torn tail " +
			"(the next open truncates it), and 1 for a corrupt one (damage followed by later records: " +
			"it will not open).",
		Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			path, err := g.walPath(args[0])
			if err != nil {
				return err
			}
			return g.walVerify(path)
		},
	})
	return cmd
}

// walPath is arg when it names a file, else the WAL of the session whose ID
// arg is, in the configuration's state directory.
func (g *globals) walPath(arg string) (string, error) {
	if strings.ContainsRune(arg, filepath.Separator) {
		return arg, nil
	}
	if _, err := os.Stat(arg); err == nil {
		return arg, nil
	}
	if !sessionID.MatchString(arg) {
		return "", fmt.Errorf("%q is neither a WAL file nor a session ID (see `axon sessions`)", arg)
	}
	cfg, _, err := g.load()
	if err != nil {
		return "", err
	}
	path := filepath.Join(daemon.SessionsDir(cfg), arg, "wal")
	if _, err := os.Stat(path); err != nil {
		return "", fmt.Errorf("no session %q in %s (see `axon sessions`)", arg, daemon.SessionsDir(cfg))
	}
	return path, nil
}

// sessionID is the shape of the IDs `axon sessions` prints: a directory
// name, never a path.
var sessionID = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]*$`)

func (g *globals) walVerify(path string) error {
	rep, err := wal.Verify(path)
	var corrupt *wal.CorruptError
	switch {
	case errors.As(err, &corrupt):
		fmt.Fprintf(g.stdout, "%s: corrupt at offset %d: %s\n", path, corrupt.Offset, corrupt.Reason)
		return exitCode(1)
	case errors.Is(err, wal.ErrCorrupt), errors.Is(err, wal.ErrVersion):
		fmt.Fprintf(g.stdout, "%s: %v\n", path, err)
		return exitCode(1)
	case err != nil:
		return err
	}
	fmt.Fprintf(g.stdout, "%s: ok: lineage %s, %d records, %d bytes\n", path, rep.Lineage, rep.LastSeq, rep.End)
	if torn := rep.Size - rep.End; torn > 0 {
		fmt.Fprintf(g.stdout, "%s: torn tail: %d bytes after the last whole batch (an unacknowledged write; the next open truncates it)\n", path, torn)
	}
	return nil
}
