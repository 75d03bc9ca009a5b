package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/axonhq/axon/host/wal"
)

func newWAL(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "wal",
		Short: "Inspect session write-ahead logs",
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "verify FILE",
		Short: "Check a session WAL without changing it",
		Long: "verify reads FILE (e.g. <state_dir>/sessions/<id>/wal) as opening it would, without the " +
			"writer lease and without changing it. It exits 0 for a clean log or one with a torn tail " +
			"(the next open truncates it), and 1 for a corrupt one (damage followed by later records: " +
			"it will not open).",
		Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error { return g.walVerify(args[0]) },
	})
	return cmd
}

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
