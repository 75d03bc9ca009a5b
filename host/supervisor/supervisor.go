package supervisor

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/axonhq/axon/host/egress"
	"github.com/axonhq/axon/host/sandbox"
	"github.com/axonhq/axon/sdk"
)

// Spec is one configured plugin instance. The HCL loader fills it from a
// provider, tool or display block; tests fill it directly.
type Spec struct {
	Name    string   // instance name: the block label, unique
	Kind    sdk.Kind // what the binary must serve
	Path    string   // plugin binary
	SHA256  []byte   // optional pin; a mismatching binary is refused
	Sandbox Sandbox  // "" means SandboxFull

	// Grants are the host paths and device nodes the jail shows the plugin.
	Grants []sandbox.Grant

	// Values returns the plugin-owned configuration, decoded against the
	// schema the plugin declares in Info. Nil means an empty object.
	Values func(info sdk.Info) (json.RawMessage, error)

	// Egress, when set, is served to the plugin. A zero Auth scheme is
	// filled from the plugin's Info.Auth. With Egress.Proxy the plugin runs
	// the HTTPS proxy on its loopback: its jail brings lo up and allows
	// IPv4/IPv6 sockets, which reach only that lo.
	Egress *egress.Grant

	// Home, when set, is the plugin process's HOME (a directory its
	// Grants show it read-write): where a command-line client the plugin
	// runs keeps its own login. Empty: the jail's private /tmp, or the
	// host's HOME for an unsandboxed plugin.
	Home string

	// IdleStop, when positive, stops the process once no call has run on
	// it for this long (checked every HealthInterval); the next call
	// starts it again. Zero keeps it running until Close.
	IdleStop time.Duration

	// MaxProcs, when positive, is the process's GOMAXPROCS (set in its
	// environment); zero leaves the Go runtime its default, every CPU.
	MaxProcs int
}

// DefaultStableAfter is Options.StableAfter when unset: a plugin that ran
// this long was serving, so its crash restarts it after BackoffBase again.
// Crashes closer together than this grow the backoff up to BackoffMax.
const DefaultStableAfter = 10 * time.Second

// Options tunes a Supervisor.
type Options struct {
	HealthInterval time.Duration // ping period for running plugins, and of the idle check (Spec.IdleStop); default 15s
	StartTimeout   time.Duration // handshake deadline, and again for Info and Configure; default 30s
	BackoffBase    time.Duration // first restart delay after a crash; default 200ms
	BackoffMax     time.Duration // default 30s
	StableAfter    time.Duration // a process that ran this long resets the backoff; default DefaultStableAfter
	Env            []string      // extra KEY=VALUE for every plugin (never secrets)
	EgressOptions  []egress.Option
	PluginIDs      IDRange // host ids for jailed plugins when the host is root; default DefaultIDRange
	ProfileDir     string  // when set (PrepareProfileDir), every plugin writes pprof profiles into DIR/<instance> (profile.go); off by default

	socketRoot string           // host-private directory of the plugins' socket directories
	clock      func() time.Time // time.Now; tests move it by hand
}

func (o *Options) defaults() {
	if o.HealthInterval <= 0 {
		o.HealthInterval = 15 * time.Second
	}
	if o.StartTimeout <= 0 {
		o.StartTimeout = 30 * time.Second
	}
	if o.BackoffBase <= 0 {
		o.BackoffBase = 200 * time.Millisecond
	}
	if o.BackoffMax <= 0 {
		o.BackoffMax = 30 * time.Second
	}
	if o.StableAfter <= 0 {
		o.StableAfter = DefaultStableAfter
	}
	if o.clock == nil {
		o.clock = time.Now
	}
	if o.PluginIDs == (IDRange{}) {
		o.PluginIDs = DefaultIDRange
	}
}

// Supervisor owns the plugin instances.
type Supervisor struct {
	logger hclog.Logger
	opts   Options

	mu        sync.Mutex
	instances map[string]*Instance
	retiring  map[*Instance]bool // retired by Reconcile, closing once idle
	slots     map[int]bool       // id-range slots held by instances and retiring ones
	closed    bool
	rootErr   error // the socket directory could not be made: every Add fails
	ids       *idSource

	stopHealth context.CancelFunc
	healthDone chan struct{}
}

// New returns a supervisor with no instances. It starts nothing.
func New(logger hclog.Logger, opts Options) *Supervisor {
	opts.defaults()
	ctx, cancel := context.WithCancel(context.Background())
	s := &Supervisor{logger: logger, opts: opts, instances: map[string]*Instance{}, retiring: map[*Instance]bool{}, slots: map[int]bool{}, stopHealth: cancel, healthDone: make(chan struct{}),
		ids: newIDSource(opts.PluginIDs)}
	if root, err := newSocketRoot(); err == nil {
		s.opts.socketRoot = root
	} else {
		s.rootErr = fmt.Errorf("supervisor: plugin socket directory: %w", err)
	}
	go s.healthLoop(ctx)
	return s
}

// Add registers an instance; its process starts on first use.
func (s *Supervisor) Add(sp Spec) error {
	if err := sp.check(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return fmt.Errorf("supervisor: closed")
	}
	if s.rootErr != nil {
		return s.rootErr
	}
	if _, dup := s.instances[sp.Name]; dup {
		return fmt.Errorf("supervisor: instance %q added twice", sp.Name)
	}
	in, err := s.newInstanceLocked(sp)
	if err != nil {
		return err
	}
	s.instances[sp.Name] = in
	return nil
}

// check refuses a spec Add or Reconcile cannot register.
func (sp *Spec) check() error {
	if sp.Name == "" || sp.Path == "" {
		return fmt.Errorf("supervisor: instance needs a name and a path")
	}
	if sp.Sandbox == "" {
		sp.Sandbox = SandboxFull
	}
	if err := sandboxSupported(sp.Sandbox); err != nil {
		return fmt.Errorf("plugin %s: %w", sp.Name, err)
	}
	for _, g := range sp.Grants {
		if err := g.Check(); err != nil {
			return fmt.Errorf("plugin %s: %w", sp.Name, err)
		}
	}
	return nil
}

// newInstanceLocked makes an instance for sp in the lowest id-range slot
// no instance holds (a retiring one keeps its slot until it is closed, so
// two live jails never share host ids).
func (s *Supervisor) newInstanceLocked(sp Spec) (*Instance, error) {
	slot := 0
	for s.slots[slot] {
		slot++
	}
	ids, layers, err := s.ids.instance(slot, sp)
	if err != nil {
		return nil, fmt.Errorf("plugin %s: %w", sp.Name, err)
	}
	in := newInstance(sp, s.logger, &s.opts)
	in.ids, in.layers, in.slot = ids, layers, slot
	s.slots[slot] = true
	return in, nil
}

// Instance returns the named instance.
func (s *Supervisor) Instance(name string) (*Instance, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	in, ok := s.instances[name]
	if !ok {
		return nil, fmt.Errorf("supervisor: no plugin instance %q", name)
	}
	return in, nil
}

// Names lists the instances, sorted.
func (s *Supervisor) Names() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	names := make([]string, 0, len(s.instances))
	for n := range s.instances {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Close kills every plugin process (gracefully, then by force) and waits
// for them. The supervisor cannot be used afterwards.
func (s *Supervisor) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	all := make([]*Instance, 0, len(s.instances)+len(s.retiring))
	for _, in := range s.instances {
		all = append(all, in)
	}
	for in := range s.retiring {
		all = append(all, in)
	}
	s.mu.Unlock()
	s.stopHealth()
	<-s.healthDone
	var wg sync.WaitGroup
	for _, in := range all {
		wg.Add(1)
		go func() {
			defer wg.Done()
			in.close()
		}()
	}
	wg.Wait()
	if s.opts.socketRoot != "" {
		os.RemoveAll(s.opts.socketRoot)
	}
}

func (s *Supervisor) healthLoop(ctx context.Context) {
	defer close(s.healthDone)
	t := time.NewTicker(s.opts.HealthInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		s.mu.Lock()
		all := make([]*Instance, 0, len(s.instances))
		for _, in := range s.instances {
			all = append(all, in)
		}
		s.mu.Unlock()
		for _, in := range all {
			in.checkHealth()
			in.stopIfIdle()
		}
		s.closeRetired()
	}
}
