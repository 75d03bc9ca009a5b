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

	mu       sync.Mutex
	proc     *process  // nil when not running
	failures int       // consecutive crashes or failed starts
	notUntil time.Time // earliest next start (backoff)
	closed   bool
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
}

func newInstance(sp Spec, logger hclog.Logger, opts *Options) *Instance {
	return &Instance{spec: sp, logger: logger.Named(sp.Name), opts: opts}
}

// Name is the instance name.
func (in *Instance) Name() string { return in.spec.Name }

// stableAfter: a process that ran this long before crashing resets the backoff.
const stableAfter = time.Minute

// ensure returns the running process, starting it if needed. A crashed
// process is reaped here and replaced after its backoff delay.
func (in *Instance) ensure(ctx context.Context) (*process, error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.closed {
		return nil, fmt.Errorf("plugin %s: supervisor closed", in.spec.Name)
	}
	if in.proc != nil && !in.proc.client.Exited() {
		return in.proc, nil
	}
	if in.proc != nil {
		in.reapLocked("process exited")
	}
	if wait := time.Until(in.notUntil); wait > 0 {
		in.logger.Debug("waiting before restart", "backoff", wait)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
	p, err := in.start(ctx)
	if err != nil {
		in.failures++
		in.notUntil = time.Now().Add(in.backoff())
		return nil, err
	}
	in.proc = p
	return p, nil
}

// reapLocked drops a dead or unhealthy process and schedules the restart.
func (in *Instance) reapLocked(why string) {
	p := in.proc
	in.proc = nil
	p.client.Kill()
	if p.egress != nil {
		p.egress.Close()
	}
	if time.Since(p.started) >= stableAfter {
		in.failures = 0
	}
	in.failures++
	in.notUntil = time.Now().Add(in.backoff())
	in.logger.Warn("plugin process lost; will restart on next use", "reason", why, "restart_in", time.Until(in.notUntil).Round(time.Millisecond))
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
	p := &process{client: client, rpc: rpc, started: time.Now(), launch: l}
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
	if err := checkAPI(p.info); err != nil {
		return err
	}
	if p.info.Kind != in.spec.Kind {
		return fmt.Errorf("binary serves a %s plugin, configured as a %s", p.info.Kind, in.spec.Kind)
	}
	values := json.RawMessage(`{}`)
	if in.spec.Values != nil {
		if values, err = in.spec.Values(p.info); err != nil {
			return fmt.Errorf("config: %w", err)
		}
	}
	var eg sdk.Egress
	if g := in.spec.Egress; g != nil {
		grant := *g
		grant.Plugin = in.spec.Name
		if !grant.AuthSet && !grant.Credential.IsZero() {
			// Without a preset or auth {}, a plugin may ask only for the
			// usual bearer header: a hostile one would name a query
			// parameter or header its upstream echoes or logs.
			switch a := p.info.Auth; a.Scheme {
			case sdk.AuthNone, sdk.AuthBearer:
				grant.Auth = a
			default:
				return fmt.Errorf("the plugin asks for its credential in %s %q; only the block's preset or auth {} may place a credential anywhere but Authorization: Bearer. "+
					"If that is where it belongs, add auth { scheme = %q  name = %q } to the block", a.Scheme, a.Name, a.Scheme, a.Name)
			}
		}
		p.egress = egress.New(grant, in.logger, in.opts.EgressOptions...)
		eg = p.egress
	}
	if err := base.Configure(ctx, values, eg); err != nil {
		return fmt.Errorf("configure: %w", err)
	}
	if p.service, err = p.rpc.Dispense(string(in.spec.Kind)); err != nil {
		return fmt.Errorf("dispense %s: %w", in.spec.Kind, err)
	}
	return nil
}

// current is the running process, or nil.
func (in *Instance) current() *process {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.proc
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

// Start starts the process now instead of on first use.
func (in *Instance) Start(ctx context.Context) error {
	_, err := in.ensure(ctx)
	return err
}

// Info returns the plugin's metadata, starting it if needed.
func (in *Instance) Info(ctx context.Context) (sdk.Info, error) {
	p, err := in.ensure(ctx)
	if err != nil {
		return sdk.Info{}, err
	}
	return p.info, nil
}

// checkHealth pings a running process; an unhealthy one is killed so the
// next call restarts it. The ping runs without the lock: a hung plugin must
// not block callers.
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
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.proc != p {
		return // already replaced
	}
	if err == nil {
		in.reapLocked("process exited")
		return
	}
	in.reapLocked("health ping failed: " + err.Error())
}

// lost reaps p if it is still the current process.
func (in *Instance) lost(p *process, why string) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.proc == p {
		in.reapLocked(why)
	}
}

// Stop kills the process, if running; the next call starts a new one.
func (in *Instance) Stop() {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.proc != nil {
		in.proc.client.Kill()
		if in.proc.egress != nil {
			in.proc.egress.Close()
		}
		in.proc = nil
	}
}

func (in *Instance) close() {
	in.mu.Lock()
	in.closed = true
	in.mu.Unlock()
	in.Stop()
}
