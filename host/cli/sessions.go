package cli

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/axonhq/axon/host/daemon"
	"github.com/axonhq/axon/host/session"
)

func newSessions(g *globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "sessions",
		Short: "List durable sessions and the state of their last run",
		Long: "sessions reads every session under <state_dir>/sessions, rebuilding each run index " +
			"from its write-ahead log. A session another axon process is using is shown from " +
			"its last snapshot, marked \"held\".",
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error { return g.sessions(asJSON) },
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the sessions as JSON")
	return cmd
}

func (g *globals) sessions(asJSON bool) error {
	cfg, _, err := g.load()
	if err != nil {
		return err
	}
	list, err := session.List(daemon.SessionsDir(cfg))
	if err != nil {
		return err
	}
	if asJSON {
		enc := json.NewEncoder(g.stdout)
		enc.SetIndent("", "  ")
		if list == nil {
			list = []session.SessionInfo{}
		}
		return enc.Encode(list)
	}
	if len(list) == 0 {
		fmt.Fprintf(g.stdout, "no sessions in %s\n", daemon.SessionsDir(cfg))
		return nil
	}
	tw := tabwriter.NewWriter(g.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SESSION\tHARNESS\tPROJECT\tRUNS\tLAST RUN\tSTATE\tWHEN\tID")
	for _, s := range list {
		last, state, when := "-", "no runs", s.CreatedAt
		if r := s.LastRun(); r != nil {
			last, state, when = r.RunID, runState(r), r.StartedAt
			if r.EndedAt != nil {
				when = *r.EndedAt
			}
		}
		switch {
		case s.Error != "":
			state = "unreadable: " + s.Error
		case s.HeldElsewhere && s.Stale:
			state += " (held by another axon; snapshot may be behind)"
		case s.HeldElsewhere:
			state += " (held by another axon)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\n", orDash(s.Key.Session), orDash(s.Key.Harness), orDash(s.Key.ProjectRoot),
			len(s.Runs), last, state, when.Local().Format(time.DateTime), s.ID)
	}
	return tw.Flush()
}

// runState is a run's state in a word or three.
func runState(r *session.RunInfo) string {
	switch r.Status {
	case session.StatusFinished:
		s := "finished: " + string(r.Reason)
		if n := len(r.IndeterminateToolCalls); n > 0 {
			s += fmt.Sprintf(" (%d tool calls indeterminate: %s)", n, strings.Join(r.IndeterminateToolCalls, ", "))
		}
		return s
	case session.StatusPaused:
		return "paused: " + string(r.PauseReason)
	}
	return "running"
}
