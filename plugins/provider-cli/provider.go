package main

import (
	"context"
	"errors"
	"os"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/axonhq/axon/sdk"
	"github.com/axonhq/axon/sdk/child"
)

// cli is the provider. It is configured once; after that Generate only
// reads its fields, so concurrent calls are safe (each runs its own client).
type cli struct {
	// getenv reads the plugin's own environment (HOME, TMPDIR); os.Getenv
	// when nil. Tests give the client a home of their own through it.
	getenv func(string) string
	// sweepOrphans reaps the processes clients leave behind, which come to
	// the plugin when it is its PID namespace's init (see sdk/child).
	sweepOrphans bool

	s     *settings
	kids  *child.Reaper
	proxy string       // sdk.Config.Proxy
	log   hclog.Logger // the host's, for this block
}

var _ sdk.Provider = (*cli)(nil)
var _ sdk.ModelLister = (*cli)(nil)

func (p *cli) Info() sdk.Info {
	return sdk.Info{
		Name:    "cli",
		Kind:    sdk.KindProvider,
		Version: version,
		Config:  schema(),
		// A coding client's command line takes no sampling knob: every
		// request option is named as ignored.
		Options: []string{},
		// A coding client's command line: no switch for parallel calls, no
		// cache to steer.
		Lacks: []string{sdk.LackSequential, sdk.LackCacheBreakpoints},
	}
}

// Configure checks the block and finds the client's binary; it starts
// nothing. The plugin needs no egress: the client reaches its vendor
// through the host's proxy (sdk.Config.Proxy), or not at all.
func (p *cli) Configure(_ context.Context, cfg sdk.Config) error {
	s, err := parseConfig(cfg)
	if err != nil {
		return err
	}
	p.s, p.proxy, p.log = s, cfg.Proxy, cfg.Logger
	p.kids = &child.Reaper{SweepOrphans: p.sweepOrphans}
	if p.log == nil {
		p.log = hclog.NewNullLogger()
	}
	return nil
}

// Models lists the configured model, when there is one.
func (p *cli) Models(context.Context) ([]sdk.Model, error) {
	if p.s == nil {
		return nil, nil
	}
	return sdk.ConfiguredModel(p.s.model), nil
}

func (p *cli) env(k string) string {
	if p.getenv != nil {
		return p.getenv(k)
	}
	return os.Getenv(k)
}

func (p *cli) Generate(ctx context.Context, req *sdk.Request, out sdk.Sink) error {
	if p.s == nil {
		return sdk.Permanentf("cli: not configured")
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	prompt, err := renderPrompt(req)
	if err != nil {
		return err
	}
	argv, err := p.s.buildArgv(prompt, req.Model)
	if err != nil {
		return err
	}
	model := req.Model
	if model == "" {
		model = p.s.model
	}
	var stdin *strings.Reader
	if p.s.promptVia == viaStdin {
		stdin = strings.NewReader(prompt)
	}

	began := time.Now()
	runCtx, cancel := context.WithTimeout(ctx, p.s.timeout)
	defer cancel()
	proc, err := start(runCtx, p.kids, argv, p.s.childEnv(p.env, p.proxy), p.env("TMPDIR"), stdin)
	if err != nil {
		return sdk.Permanentf("cli: cannot start the client: %v", err)
	}
	defer proc.close()

	st := sdk.NewStream(out, model)
	rd := newReader(p.s, st)
	var readErr error
	for readErr == nil {
		chunk, ok := proc.next(runCtx)
		if !ok {
			break
		}
		readErr = rd.feed(runCtx, chunk)
	}
	if readErr == nil && runCtx.Err() == nil {
		readErr = proc.q.failure()
	}
	if readErr != nil {
		proc.kill()
	}
	waitErr := proc.wait(runCtx)
	// What the client did, never what it was told or printed: the prompt,
	// the environment and the output stay out of the log.
	p.log.Debug("client ended", "command", argv[0], "wait", errString(waitErr), "stderr_bytes", proc.stderr.Len(),
		"duration", time.Since(began).Round(time.Millisecond))

	// The caller's end, the timeout, the sink or the bounds, in that order:
	// each makes what the client printed beside the point.
	// A sink that refused an event is not called again.
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.Is(runCtx.Err(), context.DeadlineExceeded):
		err := sdk.ErrTimeout.Newf("cli: no answer within %s; the client's process group was killed", p.s.timeout)
		if rd.sinkFailed {
			return err
		}
		return st.Fail(ctx, err)
	case rd.sinkFailed:
		return readErr
	case errors.Is(readErr, errStdoutTooLarge):
		return st.Fail(ctx, sdk.ErrEventTooLarge.Newf("cli: the client printed more than %d bytes", maxStdout))
	case readErr != nil:
		return st.Fail(ctx, readErr)
	}
	if err := rd.end(ctx); err != nil {
		if rd.sinkFailed {
			return err
		}
		return st.Fail(ctx, err)
	}
	ex, err := exitOf(waitErr)
	if err != nil {
		return st.Fail(ctx, sdk.Transientf("cli: waiting for the client: %v", err))
	}
	rep := rd.finish()
	if ex.failed(rep) {
		return st.Fail(ctx, p.s.classify(ex, rep, proc.stderr.Bytes(), rd.stdoutTail()))
	}
	if rep.badJSON {
		return st.Fail(ctx, sdk.Permanentf("cli: the client's output is not one JSON object"))
	}
	if rep.text == "" && !st.HasContent() {
		return st.Fail(ctx, sdk.ErrNoText.Newf("cli: the client answered nothing"))
	}
	if err := st.Text(ctx, rep.text); err != nil {
		return err
	}
	return st.Finish(ctx, sdk.FinishStop)
}

func errString(err error) string {
	if err == nil {
		return "exit status 0"
	}
	return err.Error()
}
