package supervisor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"

	"github.com/axonhq/axon/host/egress"
	"github.com/axonhq/axon/host/sandbox"
	"github.com/axonhq/axon/internal/pluginrpc"
	"github.com/axonhq/axon/sdk"
)

// ErrChecksum is returned when a binary does not match its sha256 pin.
var ErrChecksum = sandbox.ErrChecksum

// ErrKind is returned when a binary serves another kind of plugin than
// its block configures.
var ErrKind = errors.New("wrong plugin kind")

// ErrAPIVersion is returned when a plugin's Info.APIVersions does not list
// the SDK API version this host speaks (sdk.APIVersion).
var ErrAPIVersion = errors.New("incompatible plugin API")

// checkAPI refuses a plugin that does not speak this host's SDK API; the
// error names both sides.
func checkAPI(info sdk.Info) error {
	if slices.Contains(info.APIVersions, sdk.APIVersion) {
		return nil
	}
	spoken := "none"
	if len(info.APIVersions) > 0 {
		spoken = strings.Join(info.APIVersions, ", ")
	}
	return fmt.Errorf("%w: the plugin speaks SDK API %s, this axon speaks %s; rebuild the plugin with an axon SDK that speaks %s, or run an axon that speaks the plugin's",
		ErrAPIVersion, spoken, sdk.APIVersion, sdk.APIVersion)
}

// Instance is one configured plugin and, while it runs, its process.
type Instance struct {
	spec   Spec
	logger hclog.Logger
	opts   *Options
	ids    sandbox.IDs    // host ids of its jail (zero: the host's own)
	layers sandbox.Layers // what its jail enforces, for logs and `axon check`
	slot   int            // its index in the id range, held until it is closed

	// mu guards the fields below and is only ever held for bookkeeping: never
	// across a start, a kill, a ping or a wait.
	mu       sync.Mutex
	proc     *process      // nil when not running
	starting *startAttempt // the start under way, nil when none
	failures int           // consecutive crashes or failed starts
	notUntil time.Time     // earliest next start (backoff)
	closed   bool
	// configured is what its last start configured (Reconcile compares a
	// new spec's values with it); nil before the first.
	configured *configured
}

// configured is the Info a start read and the values it configured.
type configured struct {
	info   sdk.Info
	values json.RawMessage
}

// startAttempt is one start under way; every caller that finds it waits for
// it with its own context. p and err are set before done is closed.
type startAttempt struct {
	done   chan struct{}
	cancel context.CancelFunc
	p      *process
	err    error
}

// process is one running plugin process.
type process struct {
	client  *plugin.Client
	rpc     plugin.ClientProtocol
	info    sdk.Info
	service any // *pluginrpc.ProviderClient, ToolClient or DisplayClient
	egress  *egress.Service
	started time.Time
	launch  *launch

	// Guarded by the instance's mu: the calls running on this process, and
	// when the last one ended (its start, before any).
	inflight int
	lastUsed time.Time
}

func newInstance(sp Spec, logger hclog.Logger, opts *Options) *Instance {
	return &Instance{spec: sp, logger: logger.Named(sp.Name), opts: opts}
}

// Name is the instance name.
func (in *Instance) Name() string { return in.spec.Name }

// ErrPluginRestarting is the error of a call that finds its plugin in
// restart backoff, after a crash or a failed start: the call is refused at
// once instead of waiting, so the chain skips the hop and falls back. Its
// RetryAfter is negative, which chain.Policy reads as "fall back now, do
// not retry this hop". errors.Is(err, ErrPluginRestarting) matches it.
//
// It belongs next to sdk.ErrPluginExited; it is defined here until the sdk
// has it.
var ErrPluginRestarting = &sdk.Error{Class: sdk.ClassTransient, Code: "plugin_restarting"}

// fallBackNow is the RetryAfter of ErrPluginRestarting (see chain.Policy).
const fallBackNow = -time.Millisecond

func (in *Instance) now() time.Time { return in.opts.clock() }

func (in *Instance) errClosed() error {
	return fmt.Errorf("plugin %s: supervisor closed", in.spec.Name)
}

// ensure returns the running process, starting it if needed. A crashed
// process is reaped here. In restart backoff it returns
// ErrPluginRestarting at once; a start under way is waited for, as long as
// ctx allows.
func (in *Instance) ensure(ctx context.Context) (*process, error) {
	in.mu.Lock()
	if in.closed {
		in.mu.Unlock()
		return nil, in.errClosed()
	}
	if p := in.proc; p != nil && !p.client.Exited() {
		in.mu.Unlock()
		return p, nil
	}
	var dead *process
	if in.proc != nil {
		dead = in.reapLocked("process exited")
	}
	a := in.starting
	if a == nil {
		if wait := in.notUntil.Sub(in.now()); wait > 0 {
			failures := in.failures
			in.mu.Unlock()
			dead.kill()
			return nil, &sdk.Error{Class: ErrPluginRestarting.Class, Code: ErrPluginRestarting.Code, RetryAfter: fallBackNow,
				Message: fmt.Sprintf("plugin %s is restarting after %d failure(s): next start in %s", in.spec.Name, failures, max(wait.Round(time.Millisecond), time.Millisecond))}
		}
		a = in.startLocked()
	}
	in.mu.Unlock()
	dead.kill()
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-a.done:
		return a.p, a.err
	}
}

// startLocked starts a process in the background. The start does not end
// with the context of the call that asked for it: other calls wait for it
// too. Close cancels it.
func (in *Instance) startLocked() *startAttempt {
	ctx, cancel := context.WithCancel(context.Background())
	a := &startAttempt{done: make(chan struct{}), cancel: cancel}
	in.starting = a
	go func() {
		defer cancel()
		p, err := in.start(ctx)
		var late *process
		in.mu.Lock()
		switch {
		case err == nil && in.closed:
			late, p, err = p, nil, in.errClosed()
		case err == nil:
			p.lastUsed = in.now()
			in.proc = p
		case !in.closed:
			in.failures++
			in.notUntil = in.now().Add(in.backoff())
		}
		in.starting = nil
		in.mu.Unlock()
		late.kill()
		a.p, a.err = p, err
		close(a.done)
	}()
	return a
}

// reapLocked drops a dead or unhealthy process and schedules the restart.
// The caller kills the returned process once it has let go of mu.
func (in *Instance) reapLocked(why string) *process {
	p := in.proc
	in.proc = nil
	if in.now().Sub(p.started) >= in.opts.StableAfter {
		in.failures = 0
	}
	in.failures++
	wait := in.backoff()
	in.notUntil = in.now().Add(wait)
	in.logger.Warn("plugin process lost; will restart on next use", "reason", why, "restart_in", wait)
	return p
}

// kill ends a process dropped from its instance: gracefully, then by force
// (go-plugin's Kill waits up to 2s for a graceful exit). Nil is no process.
func (p *process) kill() {
	if p == nil {
		return
	}
	p.client.Kill()
	if p.egress != nil {
		p.egress.Close()
	}
}

func (in *Instance) backoff() time.Duration {
	if in.failures <= 1 {
		return in.opts.BackoffBase
	}
	d := in.opts.BackoffBase << min(in.failures-1, 20)
	return min(d, in.opts.BackoffMax)
}

// start launches, fingerprints and configures one process.
func (in *Instance) start(ctx context.Context) (*process, error) {
	sp := in.spec
	l, err := newLaunch(sp, in.ids, in.logger, in.opts)
	if err != nil {
		return nil, fmt.Errorf("plugin %s: %w", sp.Name, err)
	}
	client := plugin.NewClient(l.cfg)
	rpc, err := client.Client()
	l.started()
	if err != nil {
		err = l.explain(sp.Name, err)
		client.Kill()
		return nil, fmt.Errorf("plugin %s: start %s: %w", sp.Name, sp.Path, err)
	}
	p := &process{client: client, rpc: rpc, started: in.now(), launch: l}
	ctx, cancel := context.WithTimeout(ctx, in.opts.StartTimeout)
	defer cancel()
	if err := in.configure(ctx, p); err != nil {
		client.Kill()
		if p.egress != nil {
			p.egress.Close()
		}
		return nil, fmt.Errorf("plugin %s: %w", sp.Name, err)
	}
	in.logger.Info("plugin started", "path", sp.Path, "pid", p.pid(), "version", p.info.Version, "sandbox", in.layers.String())
	return p, nil
}

func (in *Instance) configure(ctx context.Context, p *process) error {
	raw, err := p.rpc.Dispense(pluginrpc.NameBase)
	if err != nil {
		return fmt.Errorf("dispense base: %w", err)
	}
	base := raw.(*pluginrpc.BaseClient)
	if p.info, err = base.Info(ctx); err != nil {
		return fmt.Errorf("info: %w", err)
	}
	values, err := in.accept(p.info)
	if err != nil {
		return err
	}
	in.mu.Lock()
	in.configured = &configured{info: p.info, values: values}
	in.mu.Unlock()
	var eg sdk.Egress
	proxy := false
	if g := in.spec.Egress; g != nil {
		proxy = g.Proxy
		grant := *g
		grant.Plugin = in.spec.Name
		if !grant.AuthSet && !grant.Credential.IsZero() {
			grant.Auth = p.info.Auth // none or bearer: accept refused the rest
		}
		p.egress = egress.New(grant, in.logger, in.opts.EgressOptions...)
		eg = p.egress
	}
	if err := base.Configure(ctx, values, eg, proxy); err != nil {
		return fmt.Errorf("configure: %w", err)
	}
	// What a provider renders may follow its block (an API mode without
	// a field): Options and Lacks are read again once it is configured.
	// They only name fields in a response header, so nothing checked
	// above is taken from this second answer.
	if in.spec.Kind == sdk.KindProvider {
		if again, err := base.Info(ctx); err == nil {
			p.info.Options, p.info.Lacks = again.Options, again.Lacks
		}
	}
	if p.service, err = p.rpc.Dispense(string(in.spec.Kind)); err != nil {
		return fmt.Errorf("dispense %s: %w", in.spec.Kind, err)
	}
	return nil
}

// accept checks what a binary declares against this instance, as every
// start does before Configure: its SDK API, its kind, the block against its
// schema, and where it asks for its credential. It returns the plugin-owned
// configuration.
func (in *Instance) accept(info sdk.Info) (json.RawMessage, error) {
	if err := checkAPI(info); err != nil {
		return nil, err
	}
	if info.Kind != in.spec.Kind {
		return nil, fmt.Errorf("%w: the binary serves a %s plugin, configured as a %s", ErrKind, info.Kind, in.spec.Kind)
	}
	values := json.RawMessage(`{}`)
	if in.spec.Values != nil {
		var err error
		if values, err = in.spec.Values(info); err != nil {
			return nil, fmt.Errorf("config: %w", err)
		}
	}
	if g := in.spec.Egress; g != nil && !g.AuthSet && !g.Credential.IsZero() {
		// Without a preset or auth {}, a plugin may ask only for the usual
		// bearer header: a hostile one would name a query parameter or
		// header its upstream echoes or logs.
		switch a := info.Auth; a.Scheme {
		case sdk.AuthNone, sdk.AuthBearer:
		default:
			return nil, fmt.Errorf("the plugin asks for its credential in %s %q; only the block's preset or auth {} may place a credential anywhere but Authorization: Bearer. "+
				"If that is where it belongs, add auth { scheme = %q  name = %q } to the block", a.Scheme, a.Name, a.Scheme, a.Name)
		}
	}
	return values, nil
}

// Layers is what this instance's jail enforces.
func (in *Instance) Layers() sandbox.Layers { return in.layers }

func (p *process) pid() int { return p.launch.pid(p.client) }

// Pid returns the process id of the running process, or 0.
func (in *Instance) Pid() int {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.proc == nil || in.proc.client.Exited() {
		return 0
	}
	return in.proc.pid()
}

// acquire returns the running process, started if needed, with one more
// call counted on it: an idle stop never takes a process a call holds.
// Every acquire is paired with a release.
func (in *Instance) acquire(ctx context.Context) (*process, error) {
	for {
		p, err := in.ensure(ctx)
		if err != nil {
			return nil, err
		}
		in.mu.Lock()
		if in.proc == p {
			p.inflight++
			in.mu.Unlock()
			return p, nil
		}
		in.mu.Unlock()
		// Stopped for idleness or lost between ensure and here: ask again,
		// as a call that came a moment later would.
	}
}

// release ends a call acquire counted; the idle time starts again.
func (in *Instance) release(p *process) {
	in.mu.Lock()
	p.inflight--
	p.lastUsed = in.now()
	in.mu.Unlock()
}

// Start starts the process now instead of on first use.
func (in *Instance) Start(ctx context.Context) error {
	_, err := in.ensure(ctx)
	return err
}

// Info returns the plugin's metadata, starting it if needed.
func (in *Instance) Info(ctx context.Context) (sdk.Info, error) {
	p, err := in.acquire(ctx)
	if err != nil {
		return sdk.Info{}, err
	}
	in.release(p)
	return p.info, nil
}

// stopIfIdle stops the running process when no call has run on it for
// Spec.IdleStop; the next call starts a new one, as the first call did. A
// stop is not a crash: the failure count and the restart backoff stay as
// they are. A process with a call in flight (a stream, a tool call, a
// Show) is never stopped, however long the call takes.
func (in *Instance) stopIfIdle() {
	if in.spec.IdleStop <= 0 {
		return
	}
	in.mu.Lock()
	p := in.proc
	if p == nil || in.closed || p.inflight > 0 || p.client.Exited() {
		in.mu.Unlock()
		return
	}
	idle := in.now().Sub(p.lastUsed)
	if idle < in.spec.IdleStop {
		in.mu.Unlock()
		return
	}
	in.proc = nil
	in.mu.Unlock()
	in.logger.Info("plugin stopped: idle", "pid", p.pid(), "idle", idle.Round(time.Second), "idle_stop", in.spec.IdleStop)
	in.haltBeforeStop(p)
	p.kill()
}

// haltTimeout bounds the Halt an idle display gets before its process is
// stopped.
const haltTimeout = 10 * time.Second

// haltBeforeStop puts an idle display to sleep with its own Halt call before
// its process is stopped. go-plugin gives a stopping plugin 2 s before it
// kills it, and a panel may take that long to sleep on its own: the epd
// waits 2 s before switching a HAT's power pin off. Killed half way, the
// panel would stay powered. p is no longer the instance's process, so no
// call can start on it meanwhile.
func (in *Instance) haltBeforeStop(p *process) {
	d, ok := p.service.(*pluginrpc.DisplayClient)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), haltTimeout)
	defer cancel()
	if err := d.Halt(ctx); err != nil {
		in.logger.Warn("display halt before its idle stop failed", "pid", p.pid(), "error", p.redactErr(err))
	}
}

// checkHealth pings a running process; an unhealthy one is killed so the
// next call restarts it. The ping and the kill run without the lock: a hung
// plugin must not block callers.
func (in *Instance) checkHealth() {
	in.mu.Lock()
	p := in.proc
	closed := in.closed
	in.mu.Unlock()
	if p == nil || closed {
		return
	}
	err := p.rpc.Ping()
	if err == nil && !p.client.Exited() {
		return
	}
	why := "process exited"
	if err != nil {
		why = "health ping failed: " + err.Error()
	}
	in.lost(p, why)
}

// lost reaps p if it is still the current process.
func (in *Instance) lost(p *process, why string) {
	in.mu.Lock()
	var dead *process
	if in.proc == p {
		dead = in.reapLocked(why)
	}
	in.mu.Unlock()
	dead.kill()
}

// Stop kills the process, if running; the next call starts a new one.
func (in *Instance) Stop() {
	in.mu.Lock()
	p := in.proc
	in.proc = nil
	in.mu.Unlock()
	p.kill()
}

// close cancels a start under way, waits for it, and kills the process.
func (in *Instance) close() {
	in.mu.Lock()
	in.closed = true
	a := in.starting
	in.mu.Unlock()
	if a != nil {
		a.cancel()
		<-a.done
	}
	in.Stop()
}
