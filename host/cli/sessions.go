package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/spf13/cobra"

	"github.com/axonhq/axon/hcl/config"
	"github.com/axonhq/axon/host/daemon"
	"github.com/axonhq/axon/host/session"
	"github.com/axonhq/axon/host/supervisor"
)

// The broker is what the session loop runs on: its chains, its tool plugins.
var (
	_ session.Chains = (*daemon.Daemon)(nil)
	_ session.Tool   = (*supervisor.Instance)(nil)
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
	list, err := session.List(sessionsDir(cfg))
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
		fmt.Fprintf(g.stdout, "no sessions in %s\n", sessionsDir(cfg))
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

func sessionsDir(cfg *config.Config) string { return filepath.Join(cfg.Axon.StateDir, "sessions") }

// sessionOptions wires the session loop to a broker: its chains, its tool
// blocks, the vault's recall tool and the providers' prices.
func sessionOptions(cfg *config.Config, b *daemon.Daemon, logger hclog.Logger) session.Options {
	tools := map[string]session.Tool{}
	for name, in := range b.Tools() {
		tools[name] = in
	}
	if cfg.Vault != nil {
		if _, taken := tools[session.RecallBlock]; taken {
			logger.Warn("a tool block is named \"recall\": the vault's recall tool is not offered")
		} else {
			tools[session.RecallBlock] = session.NewRecall(cfg.Vault.Dir)
		}
	}
	prices := map[string]session.Price{}
	for _, p := range cfg.Providers {
		prices[p.Name] = session.Price{
			InputPerMTok: p.Pricing.InputPerMTok, OutputPerMTok: p.Pricing.OutputPerMTok,
			CacheReadPerMTok: p.Pricing.CacheReadPerMTok, CacheWritePerMTok: p.Pricing.CacheWritePerMTok,
		}
	}
	return session.Options{Dir: sessionsDir(cfg), Chains: b, Tools: tools, Prices: prices, Logger: logger}
}

// startSessions opens the session manager of `axon serve`: it rebuilds
// the projections and resumes the runs a crash left open.
func startSessions(ctx context.Context, cfg *config.Config, b *daemon.Daemon, logger hclog.Logger) (*session.Manager, error) {
	m, err := session.New(sessionOptions(cfg, b, logger))
	if err != nil {
		return nil, err
	}
	if err := m.Start(ctx); err != nil {
		m.Shutdown(context.Background())
		return nil, fmt.Errorf("sessions: %w", err)
	}
	return m, nil
}

// mountSessions routes /v1/sessions to the sessions API and everything else
// to the front door.
func mountSessions(front, sessions http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/v1/sessions", sessions)
	mux.Handle("/v1/sessions/", sessions)
	mux.Handle("/", front)
	return mux
}
