package supervisor

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"github.com/hashicorp/go-plugin/runner"

	"github.com/axonhq/axon/host/sandbox"
	"github.com/axonhq/axon/internal/pluginrpc"
	"github.com/axonhq/axon/sdk"
)

// launch is one attempt to start a plugin process: the go-plugin client
// configuration and, once started, what the host knows of the process.
type launch struct {
	cfg *plugin.ClientConfig

	mu   sync.Mutex
	jail *jailRunner // sandboxed: set when go-plugin asks for the runner
	bin  *os.File    // unsandboxed: the checked binary, executed by descriptor
}

// newLaunch builds the client configuration for one process of sp. Every
// mode executes the binary through a descriptor opened (and, with a pin,
// checked) here, never its path a second time.
func newLaunch(sp Spec, ids sandbox.IDs, logger hclog.Logger, opts *Options) (*launch, error) {
	prof, err := opts.profile(sp.Name, ids)
	if err != nil {
		return nil, err
	}
	l := &launch{cfg: &plugin.ClientConfig{
		HandshakeConfig:     pluginrpc.Handshake,
		VersionedPlugins:    pluginrpc.ClientPlugins(),
		AllowedProtocols:    []plugin.Protocol{plugin.ProtocolGRPC},
		AutoMTLS:            true,
		SkipHostEnv:         true,
		Logger:              muxLogger{logger},
		StartTimeout:        opts.StartTimeout,
		GRPCDialOptions:     pluginrpc.DialOptions(),
		GRPCBrokerMultiplex: true, // the egress is served over the plugin's own connection: it dials no host socket
	}}
	if sp.Sandbox == SandboxNone {
		bin, err := sandbox.OpenBinary(sp.Path, sp.SHA256)
		if err != nil {
			return nil, err
		}
		l.bin = bin
		cmd := exec.Command(inheritedBinary) // the checked descriptor, fd 3 in the child
		cmd.Args[0] = filepath.Base(sp.Path)
		cmd.ExtraFiles = []*os.File{bin}
		cmd.Env = pluginEnv(hostPluginEnv(), sp, opts, prof)
		cmd.SysProcAttr = plainSysProcAttr()
		l.cfg.Cmd = cmd
		return l, nil
	}
	l.cfg.UnixSocketConfig = &plugin.UnixSocketConfig{TempDir: opts.socketRoot}
	l.cfg.RunnerFunc = func(_ hclog.Logger, cmd *exec.Cmd, socketDir string) (runner.Runner, error) {
		j := sandbox.Jail{
			Name: sp.Name, Binary: sp.Path, SHA256: sp.SHA256,
			Env:       append(pluginEnv(jailPluginEnv(), sp, opts, prof), cmd.Env...),
			SocketDir: socketDir, Grants: append(slices.Clip(sp.Grants), prof.grants...), IDs: ids,
			Loopback: sp.Egress != nil && sp.Egress.Proxy,
		}
		proc, err := j.Command()
		if err != nil {
			return nil, err
		}
		r, err := newJailRunner(proc, sp.Path)
		if err != nil {
			return nil, err
		}
		l.mu.Lock()
		l.jail = r
		l.mu.Unlock()
		return r, nil
	}
	return l, nil
}

// started drops the host's copy of the binary once the child has its own.
func (l *launch) started() {
	if l.bin != nil {
		l.bin.Close()
		l.bin = nil
	}
}

// explain turns a failed start into the sandbox's own account of it: the
// layer the init could not set up, or the namespaces the kernel refused.
func (l *launch) explain(name string, err error) error {
	l.mu.Lock()
	j := l.jail
	l.mu.Unlock()
	if j == nil {
		return err
	}
	j.Kill(context.Background())
	if ferr := j.proc.Failure(); ferr != nil {
		return fmt.Errorf("plugin %s: %w", name, ferr)
	}
	return sandbox.StartError(name, err)
}

func (l *launch) pid(client *plugin.Client) int {
	l.mu.Lock()
	j := l.jail
	l.mu.Unlock()
	if j != nil {
		j.mu.Lock()
		defer j.mu.Unlock()
		return j.pid
	}
	if rc := client.ReattachConfig(); rc != nil {
		return rc.Pid
	}
	return 0
}

// jailPluginEnv is the whole environment a jailed plugin gets besides
// go-plugin's own: no secret, no PATH; HOME and TMPDIR are its private /tmp.
func jailPluginEnv() []string { return []string{"HOME=/tmp", "TMPDIR=/tmp"} }

// pluginEnv is the environment of sp's process in either mode: base with
// sp's home, the options' extra variables, the profile's, and GOMAXPROCS
// (Spec.MaxProcs), which a plugin built with Go reads at start. GOMAXPROCS
// only tunes the plugin's scheduler; a plugin that ignores it gains
// nothing it could not take anyway.
func pluginEnv(base []string, sp Spec, opts *Options, prof pluginProfile) []string {
	env := append(append(withHome(base, sp.Home), opts.Env...), prof.env...)
	if sp.MaxProcs > 0 {
		env = append(env, "GOMAXPROCS="+strconv.Itoa(sp.MaxProcs))
	}
	return env
}

// withHome replaces env's HOME with home, when set.
func withHome(env []string, home string) []string {
	if home == "" {
		return env
	}
	out := slices.DeleteFunc(slices.Clone(env), func(kv string) bool { return strings.HasPrefix(kv, "HOME=") })
	return append(out, "HOME="+home)
}

// hostPluginEnv is the environment of an unsandboxed plugin.
func hostPluginEnv() []string {
	env := []string{"TMPDIR=" + os.TempDir()}
	if home, err := os.UserHomeDir(); err == nil {
		env = append(env, "HOME="+home)
	}
	return env
}

// Probe launches sp's binary with the same hardening as a real instance,
// asks for its Info, and kills it: nothing is configured and no egress is
// granted. On a root host it runs as the last id of ids. `axon plugins`
// lists binaries with it.
func Probe(ctx context.Context, logger hclog.Logger, sp Spec, ids IDRange) (sdk.Info, error) {
	if sp.Sandbox == "" {
		sp.Sandbox = SandboxFull
	}
	if err := sandboxSupported(sp.Sandbox); err != nil {
		return sdk.Info{}, err
	}
	opts := Options{PluginIDs: ids}
	opts.defaults()
	root, err := newSocketRoot()
	if err != nil {
		return sdk.Info{}, err
	}
	defer os.RemoveAll(root)
	opts.socketRoot = root
	l, err := newLaunch(sp, newIDSource(opts.PluginIDs).probe(), logger, &opts)
	if err != nil {
		return sdk.Info{}, fmt.Errorf("plugin %s: %w", sp.Name, err)
	}
	info, err := l.info(ctx, sp)
	if err != nil {
		return sdk.Info{}, err
	}
	if err := checkAPI(info); err != nil {
		return sdk.Info{}, fmt.Errorf("plugin %s: %w", sp.Name, err)
	}
	return info, nil
}

// newSocketRoot makes the host-private (0700) directory that go-plugin
// creates each plugin's socket directory in.
func newSocketRoot() (string, error) {
	return os.MkdirTemp("", "axon-plugins-")
}
