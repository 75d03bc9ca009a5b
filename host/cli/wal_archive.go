package cli

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/axonhq/axon/hcl/config"
	"github.com/axonhq/axon/host/session"
)

func newWALArchive(g *globals) *cobra.Command {
	var olderThan string
	cmd := &cobra.Command{
		Use:   "archive [--older-than 30d] [SESSION-ID...]",
		Short: "Move old session logs into a sealed, digest-verified archive container",
		Long: "archive packs the logs of eligible sessions into a sealed container in " +
			"<state_dir>/wal-archive (a tar file named for its manifest's SHA-256; the manifest lists each " +
			"log's session, lineage, record count and digest) and removes them from the sessions directory. " +
			"A session is eligible when it has no open run, no axon holds it (its writer lease is free), its " +
			"log verifies, and it was last written at least --older-than ago (default 30d when no session " +
			"is named; any age when sessions are named and the flag is not given). Every other session is " +
			"named with the reason it stays. Archived sessions are still listed and read; a new run on one " +
			"restores its log first.",
		RunE: func(cmd *cobra.Command, args []string) error {
			age := time.Duration(0)
			if cmd.Flags().Changed("older-than") || len(args) == 0 {
				d, err := config.ParseAge(olderThan)
				if err != nil {
					return fmt.Errorf("--older-than %q: %v", olderThan, err)
				}
				age = d
			}
			for _, a := range args {
				if !sessionID.MatchString(a) {
					return fmt.Errorf("%q is not a session ID (see `axon sessions`)", a)
				}
			}
			return g.walArchive(cmd, age, args)
		},
	}
	cmd.Flags().StringVar(&olderThan, "older-than", "30d", "archive only logs last written at least this long ago (30d, 36h, 1d12h)")
	return cmd
}

func (g *globals) walArchive(cmd *cobra.Command, age time.Duration, ids []string) error {
	dir, err := g.sessionsDir()
	if err != nil {
		return err
	}
	res, err := session.Archive(cmd.Context(), dir, session.ArchiveOptions{OlderThan: age, Sessions: ids})
	for _, s := range res.Superseded {
		fmt.Fprintf(g.stdout, "superseded %s (the live log is the session's)\n", s)
	}
	for _, e := range res.Archived {
		fmt.Fprintf(g.stdout, "archived %s: lineage %s, %d records, %d bytes, sha256 %s\n", e.Session, e.Lineage, e.Records, e.Size, e.SHA256)
	}
	recent := 0
	for _, s := range res.Skipped {
		if s.Recent && len(ids) == 0 {
			recent++
			continue
		}
		fmt.Fprintf(g.stdout, "kept %s: %s\n", s.Session, s.Reason)
	}
	for _, c := range res.Containers {
		fmt.Fprintf(g.stdout, "sealed %s\n", c)
	}
	for _, c := range res.Removed {
		fmt.Fprintf(g.stdout, "removed %s (every copy in it superseded)\n", filepath.Base(c))
	}
	fmt.Fprintf(g.stdout, "%d archived into %d containers, %d kept", len(res.Archived), len(res.Containers), len(res.Skipped))
	if recent > 0 {
		fmt.Fprintf(g.stdout, " (%d written within %s)", recent, age)
	}
	fmt.Fprintln(g.stdout)
	return err
}

func newWALRestore(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "restore SESSION-ID...",
		Short: "Put archived session logs back in the sessions directory",
		Long: "restore copies each session's archived log back into <state_dir>/sessions/<id>/wal, after " +
			"checking it against its manifest digest, and marks the archived copy superseded, as a new run " +
			"on the session would. A session whose log is live is left alone. A digest mismatch is refused, " +
			"naming the container, the session and both digests.",
		Args: cobra.MinimumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			dir, err := g.sessionsDir()
			if err != nil {
				return err
			}
			for _, id := range args {
				ok, err := session.Restore(dir, id)
				if err != nil {
					return err
				}
				if ok {
					fmt.Fprintf(g.stdout, "restored %s\n", id)
				} else {
					fmt.Fprintf(g.stdout, "%s: live already\n", id)
				}
			}
			return nil
		},
	}
}
