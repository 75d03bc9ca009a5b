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
	"github.com/axonhq/axon/host/session"
	"github.com/axonhq/axon/host/wal"
	"github.com/axonhq/axon/host/walarchive"
)

func newWAL(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "wal",
		Short: "Inspect, archive and restore session write-ahead logs",
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "verify [FILE|SESSION-ID|CONTAINER.tar]...",
		Short: "Check session WALs and archive containers without changing them",
		Long: "verify reads each FILE (e.g. <state_dir>/sessions/<id>/wal), the log of each session whose ID " +
			"`axon sessions` prints (live, else its archived copy), or each archive container " +
			"(<state_dir>/wal-archive/<digest>.tar), as opening it would, without the writer lease and " +
			"without changing it. Without arguments it checks every session of the state directory " +
			"(each must resolve to one log, live or archived) and every container. A container is " +
			"checked whole: its manifest against its name, every log against its manifest digest, " +
			"lineage and record count, and as a log. It exits 0 when everything is clean (a torn tail " +
			"counts as clean: the next open truncates it), and 1 when anything is corrupt or missing.",
		RunE: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return g.walVerifyAll()
			}
			bad := false
			for _, arg := range args {
				ok, err := g.walVerifyArg(arg)
				if err != nil {
					return err
				}
				bad = bad || !ok
			}
			if bad {
				return exitCode(1)
			}
			return nil
		},
	})
	cmd.AddCommand(newWALArchive(g), newWALRestore(g))
	return cmd
}

// walVerifyArg verifies one argument of `axon wal verify`.
func (g *globals) walVerifyArg(arg string) (bool, error) {
	if strings.HasSuffix(arg, walarchive.Ext) {
		return g.containerVerify(arg), nil
	}
	if strings.ContainsRune(arg, filepath.Separator) {
		return g.walVerify(arg)
	}
	if _, err := os.Stat(arg); err == nil {
		return g.walVerify(arg)
	}
	if !sessionID.MatchString(arg) {
		return false, fmt.Errorf("%q is neither a WAL file, an archive container nor a session ID (see `axon sessions`)", arg)
	}
	dir, err := g.sessionsDir()
	if err != nil {
		return false, err
	}
	path := filepath.Join(dir, arg, "wal")
	if _, err := os.Stat(path); err == nil {
		return g.walVerify(path)
	}
	places, err := session.Places(dir)
	if err != nil {
		return false, err
	}
	for _, pl := range places {
		if pl.Session != arg {
			continue
		}
		if pl.Err != nil {
			fmt.Fprintf(g.stdout, "%s: %v\n", arg, pl.Err)
			return false, nil
		}
		return g.containerEntryVerify(pl.Container, arg), nil
	}
	return false, fmt.Errorf("no session %q in %s (see `axon sessions`)", arg, dir)
}

func (g *globals) sessionsDir() (string, error) {
	cfg, _, err := g.load()
	if err != nil {
		return "", err
	}
	return daemon.SessionsDir(cfg), nil
}

// walVerifyAll checks every session's log, live or archived, and every
// container.
func (g *globals) walVerifyAll() error {
	dir, err := g.sessionsDir()
	if err != nil {
		return err
	}
	places, err := session.Places(dir)
	if err != nil {
		return err
	}
	bad, live, archived := false, 0, 0
	for _, pl := range places {
		switch {
		case pl.Err != nil:
			fmt.Fprintf(g.stdout, "%s: %v\n", pl.Session, pl.Err)
			bad = true
		case pl.Live:
			live++
			ok, err := g.walVerify(filepath.Join(dir, pl.Session, "wal"))
			if err != nil {
				return err
			}
			bad = bad || !ok
			for _, c := range pl.Pending {
				fmt.Fprintf(g.stdout, "%s: live, and an archived copy in %s is not marked superseded yet (the next `axon wal archive` marks it; the live log is the session's)\n", pl.Session, c)
			}
		default:
			archived++
		}
	}
	containers, err := session.Containers(dir)
	if err != nil {
		return err
	}
	for _, c := range containers {
		bad = !g.containerVerify(c) || bad
	}
	fmt.Fprintf(g.stdout, "%d sessions: %d live, %d archived; %d containers\n", len(places), live, archived, len(containers))
	if bad {
		return exitCode(1)
	}
	return nil
}

// containerVerify prints the verdict on a whole container.
func (g *globals) containerVerify(path string) bool {
	rep := walarchive.Verify(path)
	if rep.Err != nil {
		fmt.Fprintf(g.stdout, "%s: corrupt: %v\n", path, rep.Err)
	}
	for _, e := range rep.Entries {
		g.entryLine(path, e)
	}
	if rep.OK() {
		fmt.Fprintf(g.stdout, "%s: ok: sealed, %d logs\n", path, len(rep.Entries))
	}
	return rep.OK()
}

// containerEntryVerify prints the verdict on one session's archived copy.
func (g *globals) containerEntryVerify(path, id string) bool {
	rep := walarchive.Verify(path)
	if rep.Err != nil {
		fmt.Fprintf(g.stdout, "%s: corrupt: %v\n", path, rep.Err)
		return false
	}
	for _, e := range rep.Entries {
		if e.Entry.Session == id {
			g.entryLine(path, e)
			return e.Err == nil
		}
	}
	fmt.Fprintf(g.stdout, "%s: no copy of session %s\n", path, id)
	return false
}

func (g *globals) entryLine(path string, e walarchive.EntryReport) {
	if e.Err != nil {
		fmt.Fprintf(g.stdout, "%s: %s: corrupt: %v\n", path, e.Entry.Session, e.Err)
		return
	}
	fmt.Fprintf(g.stdout, "%s: %s: ok (archived): lineage %s, %d records, %d bytes, sha256 %s\n",
		path, e.Entry.Session, e.Entry.Lineage, e.Entry.Records, e.Entry.Size, e.Entry.SHA256)
}

// sessionID is the shape of the IDs `axon sessions` prints: a directory
// name, never a path.
var sessionID = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]*$`)

// walVerify prints the verdict on one live log: false when it is corrupt.
func (g *globals) walVerify(path string) (bool, error) {
	rep, err := wal.Verify(path)
	var corrupt *wal.CorruptError
	switch {
	case errors.As(err, &corrupt):
		fmt.Fprintf(g.stdout, "%s: corrupt at offset %d: %s\n", path, corrupt.Offset, corrupt.Reason)
		return false, nil
	case errors.Is(err, wal.ErrCorrupt), errors.Is(err, wal.ErrVersion):
		fmt.Fprintf(g.stdout, "%s: %v\n", path, err)
		return false, nil
	case err != nil:
		return false, err
	}
	fmt.Fprintf(g.stdout, "%s: ok: lineage %s, %d records, %d bytes\n", path, rep.Lineage, rep.LastSeq, rep.End)
	if torn := rep.Size - rep.End; torn > 0 {
		fmt.Fprintf(g.stdout, "%s: torn tail: %d bytes after the last whole batch (an unacknowledged write; the next open truncates it)\n", path, torn)
	}
	return true, nil
}
