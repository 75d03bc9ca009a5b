package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/axonhq/axon/hcl/config"
	"github.com/axonhq/axon/host/daemon"
	"github.com/axonhq/axon/host/session"
)

// Exit codes of `axon run`, by how the run ended.
const (
	exitRunPaused      = 2 // no provider answered; resume with --resume
	exitRunInterrupted = 3 // the host stopped, or crashed mid-call
)

type runFlags struct {
	session, chain, project, harness, key, system string
	tools                                         []string
	maxTurns                                      int
	budgetTokens                                  int64
	budgetUSD                                     float64
	resume, cancel, verbose                       bool
}

func newRun(g *globals) *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run --session NAME [--tools clock,fetch] PROMPT | --resume | --cancel",
		Short: "Run a prompt as a durable agent session and stream it",
		Long: "run sends PROMPT to the session NAME (of this project directory and harness) and " +
			"shows the agent loop to its end: model step, tool calls, results, until the model stops " +
			"calling tools or a limit is reached. When axon serve answers on the configuration's unix " +
			"socket or listener (found as axon reload finds it, with its token), the daemon drives the " +
			"run and this command is its client; Ctrl-C then cancels the run. Only when no daemon " +
			"answers (connection refused, no socket) does it drive the loop in this process, with its " +
			"own plugin processes; Ctrl-C there seals the run interrupted. A daemon that refuses (a " +
			"wrong token) is an error, never a reason to run here. Every step is " +
			"in the session's write-ahead log first, so a run killed at any point resumes the next " +
			"time the session is opened, or ends \"interrupted\" naming the tool calls whose outcome " +
			"is unknown; a tool call is never sent twice. The answer goes to stdout, tool activity to " +
			"stderr. Sending again with the same --idempotency-key shows the run it started instead " +
			"of starting another. Exit status: 0 finished (completed, max_turns, budget), 1 failed, " +
			"refused or cancelled, 2 paused (no provider answered: --resume continues), 3 interrupted. " +
			"--cancel ends the session's paused or running run cancelled instead (a running one at its " +
			"next step, naming tool calls still in flight as indeterminate): it exits 0 once the run " +
			"has ended cancelled, 1 when the session has no paused or running run (a running run that " +
			"ends otherwise before it stops exits as above).",
		Args: func(cmd *cobra.Command, args []string) error {
			if f.resume || f.cancel {
				return cobra.NoArgs(cmd, args)
			}
			return cobra.MinimumNArgs(1)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGTERM, syscall.SIGINT)
			defer stop()
			return g.runSession(ctx, stop, f, strings.Join(args, " "))
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.session, "session", "", "session name (required)")
	fl.StringSliceVar(&f.tools, "tools", nil, "tool blocks the run may use, comma-separated (\"recall\" for the vault)")
	fl.StringVar(&f.chain, "chain", "default", "chain, or CHAIN/PROVIDER")
	fl.IntVar(&f.maxTurns, "max-turns", 10, "most model steps the run may take")
	fl.Int64Var(&f.budgetTokens, "budget-tokens", 0, "stop once the run has used this many tokens (0: no limit)")
	fl.Float64Var(&f.budgetUSD, "budget-usd", 0, "stop once the run has cost this much at the providers' prices (0: no limit)")
	fl.StringVar(&f.key, "idempotency-key", "", "key that makes a resend show the same run (default: a new one)")
	fl.StringVar(&f.system, "system", "", "system prompt")
	fl.StringVar(&f.project, "project-root", "", "project directory the session belongs to (default: the working directory)")
	fl.StringVar(&f.harness, "harness", "cli", "harness the session belongs to")
	fl.BoolVar(&f.resume, "resume", false, "resume the session's paused run instead of sending a prompt")
	fl.BoolVar(&f.cancel, "cancel", false, "cancel the session's paused or running run instead of sending a prompt")
	fl.BoolVarP(&f.verbose, "verbose", "v", false, "log the host and plugins")
	cmd.MarkFlagRequired("session")
	cmd.MarkFlagsMutuallyExclusive("resume", "cancel")
	return cmd
}

// runSession runs the prompt; stopSignals restores the default action of
// SIGINT and SIGTERM (so a second Ctrl-C ends this process at once).
func (g *globals) runSession(ctx context.Context, stopSignals func(), f runFlags, prompt string) error {
	cfg, lock, err := g.load()
	if err != nil {
		return err
	}
	key, err := f.sessionKey()
	if err != nil {
		return err
	}
	d, err := findDaemon(cfg)
	if err != nil {
		return err
	}
	// A running axon serve drives the run; this process only shows it. Only
	// when none answers does the loop run here.
	var adm session.Admitted
	err = g.drive(ctx, remoteSessions{d}, key, f, prompt, g.newRunPrinter(f), func(a session.Admitted) {
		adm = a
		fmt.Fprintf(g.stderr, "[run %s of session %s runs in axon serve at %s; Ctrl-C cancels it]\n", a.RunID, f.session, d.where)
	}, func(h sessionHost, adm session.Admitted, p *runPrinter) error {
		stopSignals()
		return g.cancelOnInterrupt(h, adm, p)
	})
	if errors.Is(err, errStreamLost) && adm.IdempotencyKey != "" {
		return fmt.Errorf("%w\nthe run goes on in axon serve if it still runs (axon sessions shows it); to follow it again, send the same prompt with --idempotency-key %s", err, adm.IdempotencyKey)
	}
	if !errors.Is(err, errNoDaemon) || d.answered {
		return err
	}
	return g.runLocal(ctx, cfg, lock, key, f, prompt)
}

func (g *globals) newRunPrinter(f runFlags) *runPrinter {
	return &runPrinter{g: g, session: f.session, streamed: map[string]bool{}}
}

// runLocal drives the run in this process, with its own plugin processes.
func (g *globals) runLocal(ctx context.Context, cfg *config.Config, lock *config.Lock, key session.Key, f runFlags, prompt string) error {
	cfg.Displays = nil // the daemon owns the panels
	logger := g.logger()
	if !f.verbose {
		logger.SetLevel(hclogLevelQuiet)
	}
	facts, closeFacts := usageStore(ctx, cfg, logger)
	defer closeFacts() // after b.Close, which writes the last facts
	b, err := daemon.New(cfg, lock, logger, daemon.Options{Usage: facts})
	if err != nil {
		return err
	}
	defer b.Close()
	m, err := b.NewSessions()
	if err != nil {
		return err
	}
	defer m.Shutdown(context.Background()) // before the plugins close (defers run last first)
	return g.drive(ctx, localSessions{m}, key, f, prompt, g.newRunPrinter(f), nil,
		func(_ sessionHost, adm session.Admitted, p *runPrinter) error {
			// SIGINT or SIGTERM: seal the run interrupted, as axon serve does.
			fmt.Fprintln(g.stderr, "axon: stopping: the run is sealed as interrupted")
			m.Shutdown(context.Background())
			if info := lastRunOf(daemon.SessionsDir(cfg), adm.SessionID, adm.RunID); info != nil {
				p.reportEnd(info.Reason, info.IndeterminateToolCalls)
			}
			return exitCode(exitRunInterrupted)
		})
}

// drive sends the prompt (or resumes, or cancels) on h and shows the run
// to its end. started is told of the run once admitted; interrupted is
// what SIGINT or SIGTERM while following does.
func (g *globals) drive(ctx context.Context, h sessionHost, key session.Key, f runFlags, prompt string, p *runPrinter,
	started func(session.Admitted), interrupted func(sessionHost, session.Admitted, *runPrinter) error) error {
	if f.cancel {
		return g.cancelRun(ctx, h, key, p)
	}
	adm, err := g.admit(ctx, h, key, f, prompt, p)
	if err != nil {
		return err
	}
	if started != nil {
		started(adm)
	}
	if ctx.Err() != nil { // interrupted while the run was being started
		return interrupted(h, adm, p)
	}
	end, err := p.follow(ctx, h, adm, false)
	if err != nil && ctx.Err() != nil {
		return interrupted(h, adm, p)
	}
	if errors.Is(err, session.ErrShuttingDown) {
		fmt.Fprintln(g.stderr, "axon: axon serve is stopping: the run is sealed as interrupted")
		return exitCode(exitRunInterrupted)
	}
	if err != nil {
		return err
	}
	return runExit(end)
}

// cancelOnInterrupt is Ctrl-C (or SIGTERM) while following a run axon
// serve drives: the run is ended cancelled, as it ends in-process (there
// sealed interrupted, since the process that drove it stops), and shown to
// its end. A second Ctrl-C leaves at once; the cancel stands.
func (g *globals) cancelOnInterrupt(h sessionHost, adm session.Admitted, p *runPrinter) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a hang guard: tool calls get a 5 s grace
	defer cancel()
	fmt.Fprintf(g.stderr, "axon: stopping: cancelling run %s in axon serve\n", adm.RunID)
	if _, err := h.Cancel(ctx, adm.SessionID, adm.RunID); err != nil && !errors.Is(err, session.ErrNoOpenRun) {
		return err
	}
	after := p.last
	if after == (session.Cursor{}) { // no event of the run seen yet
		after = adm.After
	}
	end, err := p.follow(ctx, h, session.Admitted{SessionID: adm.SessionID, RunID: adm.RunID, After: after}, false)
	if err != nil {
		return err
	}
	return runExit(end)
}

// sessionHost is where a run is driven: this process's session manager,
// or a running axon serve over its sessions API.
type sessionHost interface {
	Session(ctx context.Context, id string) (*session.SessionInfo, error)
	Send(ctx context.Context, key session.Key, p session.Params) (session.Admitted, error)
	Cancel(ctx context.Context, id, run string) (string, error)
	Resume(ctx context.Context, id, run string) (string, error)
	Follow(ctx context.Context, id string, after session.Cursor, opts session.FollowOptions, fn func(session.Item) error) error
}

// localSessions is the session manager of this process.
type localSessions struct{ *session.Manager }

var _ sessionHost = localSessions{}

func (l localSessions) Session(_ context.Context, id string) (*session.SessionInfo, error) {
	return l.Manager.Session(id)
}

func (f *runFlags) sessionKey() (session.Key, error) {
	root := f.project
	if root == "" {
		wd, err := os.Getwd()
		if err != nil {
			return session.Key{}, err
		}
		root = wd
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return session.Key{}, err
	}
	return session.Key{ProjectRoot: abs, Harness: f.harness, Session: f.session}, nil
}

// admit starts the run (or finds it, or resumes the paused one). A session
// busy with a run a crash left open is followed to its end first.
func (g *globals) admit(ctx context.Context, m sessionHost, key session.Key, f runFlags, prompt string, p *runPrinter) (session.Admitted, error) {
	id := key.ID()
	if f.resume {
		info, err := m.Session(ctx, id)
		if err != nil {
			return session.Admitted{}, err
		}
		sctx, cancel := startContext(ctx)
		run, err := m.Resume(sctx, id, "")
		cancel()
		if errors.Is(err, session.ErrNoOpenRun) {
			return session.Admitted{}, fmt.Errorf("session %q has no paused run to resume: %w", f.session, err)
		}
		if err != nil {
			return session.Admitted{}, err
		}
		return session.Admitted{SessionID: id, RunID: run, Status: session.StatusRunning, Existing: true, After: session.After(info.AppliedSeq)}, nil
	}
	params := session.Params{Prompt: prompt, System: f.system, IdempotencyKey: f.key, Chain: f.chain, Tools: f.tools, MaxTurns: &f.maxTurns}
	if f.budgetTokens > 0 {
		params.Budget.Tokens = &f.budgetTokens
	}
	if f.budgetUSD > 0 {
		params.Budget.CostUSD = &f.budgetUSD
	}
	for {
		sctx, cancel := startContext(ctx)
		adm, err := m.Send(sctx, key, params)
		cancel()
		var busy *session.BusyError
		if !errors.As(err, &busy) || busy.Status != session.StatusRunning {
			if adm.Existing {
				fmt.Fprintf(g.stderr, "[run %s was started with this idempotency key: showing it]\n", adm.RunID)
			}
			return adm, err
		}
		fmt.Fprintf(g.stderr, "[session %s has a run %s in progress: following it first]\n", f.session, busy.RunID)
		info, err := m.Session(ctx, id)
		if err != nil {
			return session.Admitted{}, err
		}
		start := session.After(0)
		for _, r := range info.Runs {
			if r.RunID == busy.RunID {
				start = session.After(r.StartSeq - 1)
			}
		}
		if _, err := p.follow(ctx, m, session.Admitted{SessionID: id, RunID: busy.RunID, After: start}, true); err != nil {
			return session.Admitted{}, err
		}
	}
}

// startContext is the context of the request that starts or resumes a
// run: Ctrl-C does not cut it short, since a daemon may admit the run
// while its answer is on the way, and a run this process cannot name is
// one it cannot cancel. drive handles the interrupt once the run is known.
func startContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), time.Minute) // a hang guard
}

// cancelRun cancels the session's open run and follows it to its end: a
// paused run ends at once, a running one at its next step.
func (g *globals) cancelRun(ctx context.Context, m sessionHost, key session.Key, p *runPrinter) error {
	id := key.ID()
	info, err := m.Session(ctx, id)
	if errors.Is(err, session.ErrNotFound) {
		return fmt.Errorf("session %q has no paused or running run to cancel: there is no such session of project %s, harness %s", key.Session, key.ProjectRoot, key.Harness)
	}
	if err != nil {
		return err
	}
	if info.HeldElsewhere {
		return fmt.Errorf("session %q is held by another axon process (axon serve, or another axon run): cancel its run there", key.Session)
	}
	var open *session.RunInfo
	for i := range info.Runs {
		if info.Runs[i].Status != session.StatusFinished {
			open = &info.Runs[i]
		}
	}
	if open == nil {
		last := "it has no runs"
		if r := info.LastRun(); r != nil {
			last = fmt.Sprintf("its last run %s is %s", r.RunID, runState(r))
		}
		return fmt.Errorf("session %q has no paused or running run to cancel: %s", key.Session, last)
	}
	runID, err := m.Cancel(ctx, id, open.RunID)
	if errors.Is(err, session.ErrNoOpenRun) {
		return fmt.Errorf("session %q has no paused or running run to cancel: %w", key.Session, err)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(g.stderr, "[cancelling run %s of session %s (chain %s, %s)]\n", runID, key.Session, open.Chain, runState(open))
	end, err := p.follow(ctx, m, session.Admitted{SessionID: id, RunID: runID, After: session.After(info.AppliedSeq)}, false)
	if err != nil {
		return err
	}
	if end != nil && end.Type == session.EvRunFinished && session.EndReason(end.Reason) == session.EndCancelled {
		return nil
	}
	return runExit(end) // it ended otherwise before it could stop, as printed
}

// lastRunOf reads run from the session's log after the manager closed it.
func lastRunOf(dir, id, run string) *session.RunInfo {
	list, err := session.List(dir)
	if err != nil {
		return nil
	}
	for _, s := range list {
		if s.ID != id {
			continue
		}
		for i := range s.Runs {
			if s.Runs[i].RunID == run {
				return &s.Runs[i]
			}
		}
	}
	return nil
}

func runExit(end *session.Event) error {
	if end == nil {
		return exitCode(1)
	}
	if end.Type == session.EvRunPaused {
		return exitCode(exitRunPaused)
	}
	switch session.EndReason(end.Reason) {
	case session.EndCompleted, session.EndMaxTurns, session.EndBudget:
		return nil
	case session.EndInterrupted:
		return exitCode(exitRunInterrupted)
	}
	return exitCode(1)
}

// runPrinter shows a run on the terminal: the answer on stdout as it
// streams (display deltas), tool activity and the outcome on stderr. A
// step whose deltas it did not see whole (a resumed run, a gap) is printed
// from its durable event instead.
type runPrinter struct {
	g        *globals
	session  string
	streamed map[string]bool // "run/step" whose every delta was printed
	gap      bool
	midLine  bool
	last     session.Cursor // of the last event of the run followed
}

func (p *runPrinter) follow(ctx context.Context, m sessionHost, adm session.Admitted, showPrompt bool) (*session.Event, error) {
	var end *session.Event
	err := m.Follow(ctx, adm.SessionID, adm.After, session.FollowOptions{Display: true, Run: adm.RunID}, func(it session.Item) error {
		if it.Delta != nil {
			p.delta(it.Delta)
			return nil
		}
		e := it.Event
		if e.RunID != adm.RunID {
			return nil
		}
		p.event(e, showPrompt)
		p.last = e.Cursor
		if e.Ends() {
			end = e
		}
		return nil
	})
	return end, err
}

func (p *runPrinter) delta(d *session.Delta) {
	if d.Type == session.DeltaGap {
		p.gap = true
		return
	}
	if d.Kind != "text" {
		return
	}
	key := fmt.Sprintf("%s/%d", d.RunID, d.Step)
	if _, seen := p.streamed[key]; !seen {
		p.streamed[key] = !p.gap
	}
	fmt.Fprint(p.g.stdout, d.Text)
	p.midLine = !strings.HasSuffix(d.Text, "\n")
}

func (p *runPrinter) event(e *session.Event, showPrompt bool) {
	switch e.Type {
	case session.EvUserMessage:
		if showPrompt {
			fmt.Fprintf(p.g.stderr, "> %s\n", e.Text)
		}
	case session.EvModelStep:
		key := fmt.Sprintf("%s/%d", e.RunID, e.Step)
		if whole := p.streamed[key] && !p.gap; !whole && e.Text != "" {
			fmt.Fprint(p.g.stdout, e.Text)
			p.midLine = !strings.HasSuffix(e.Text, "\n")
		}
		p.gap = false
		p.endLine()
	case session.EvToolDispatch:
		fmt.Fprintf(p.g.stderr, "[%s %s → %s]\n", e.Call.Block, e.Call.Name, e.Call.ID)
	case session.EvToolResult:
		status := "ok"
		if e.IsError {
			status = "error"
		}
		fmt.Fprintf(p.g.stderr, "[%s %s: %s] %s\n", e.Call.Name, e.Call.ID, status, firstLine(e.Text, 160))
	case session.EvRunFinished:
		p.endLine()
		p.reportEnd(session.EndReason(e.Reason), e.IndeterminateToolCalls)
		if e.Error != nil {
			fmt.Fprintf(p.g.stderr, "  %s\n", e.Error.Message)
		}
	case session.EvRunPaused:
		p.endLine()
		msg := ""
		if e.Error != nil {
			msg = ": " + e.Error.Message
		}
		wait := ""
		if e.RetryAfterMS > 0 {
			wait = fmt.Sprintf(" (providers suggest waiting %s)", time.Duration(e.RetryAfterMS)*time.Millisecond)
		}
		fmt.Fprintf(p.g.stderr, "[run %s paused: %s%s]\nresume it with: axon run --session %s --resume%s\nor end it with:  axon run --session %[4]s --cancel\n", e.RunID, e.Reason, msg, p.session, wait)
	case session.EvRunResumed:
		fmt.Fprintf(p.g.stderr, "[run %s resumed]\n", e.RunID)
	}
}

func (p *runPrinter) reportEnd(reason session.EndReason, indeterminate []string) {
	fmt.Fprintf(p.g.stderr, "[run finished: %s]\n", reason)
	if len(indeterminate) > 0 {
		fmt.Fprintf(p.g.stderr, "  tool calls with an unknown outcome (never sent again): %s\n", strings.Join(indeterminate, ", "))
	}
}

func (p *runPrinter) endLine() {
	if p.midLine {
		fmt.Fprintln(p.g.stdout)
		p.midLine = false
	}
}

func firstLine(s string, max int) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > max {
		s = s[:max] + "…"
	}
	return s
}
