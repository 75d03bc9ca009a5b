package supervisor

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"

	"github.com/axonhq/axon/sdk/pluginrpc"
	"github.com/axonhq/axon/sdk/spec"
)

func (in *Instance) clientConfig() *plugin.ClientConfig {
	cmd := exec.Command(in.spec.Path)
	cmd.Env = append(pluginEnv(), in.opts.Env...)
	cmd.SysProcAttr = sysProcAttr(in.spec.Sandbox)
	cfg := &plugin.ClientConfig{
		HandshakeConfig:  pluginrpc.Handshake,
		VersionedPlugins: pluginrpc.ClientPlugins(),
		Cmd:              cmd,
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		AutoMTLS:         true,
		SkipHostEnv:      true,
		Logger:           in.logger,
		StartTimeout:     in.opts.StartTimeout,
		GRPCDialOptions:  pluginrpc.DialOptions(),
	}
	if in.spec.SHA256 != nil {
		cfg.SecureConfig = &plugin.SecureConfig{Checksum: in.spec.SHA256, Hash: sha256.New()}
	}
	return cfg
}

// pluginEnv is the whole environment a plugin gets: no secret, no PATH.
func pluginEnv() []string {
	env := []string{"TMPDIR=" + os.TempDir()}
	if home, err := os.UserHomeDir(); err == nil {
		env = append(env, "HOME="+home)
	}
	return env
}

func checkSum(path string, want []byte) error {
	sc := &plugin.SecureConfig{Checksum: want, Hash: sha256.New()}
	ok, err := sc.Check(path)
	if err != nil {
		return fmt.Errorf("checksum %s: %w", path, err)
	}
	if !ok {
		return ErrChecksum
	}
	return nil
}

func (p *process) pid() int {
	if rc := p.client.ReattachConfig(); rc != nil {
		return rc.Pid
	}
	return 0
}

// Probe launches sp's binary with the same hardening as a real instance,
// asks for its Info, and kills it: nothing is configured and no egress is
// granted. `axon plugins` lists binaries with it.
func Probe(ctx context.Context, logger hclog.Logger, sp Spec) (spec.Info, error) {
	if sp.Sandbox == "" {
		sp.Sandbox = SandboxNetNS
	}
	opts := Options{}
	opts.defaults()
	in := newInstance(sp, logger, &opts)
	if sp.SHA256 != nil {
		if err := checkSum(sp.Path, sp.SHA256); err != nil {
			return spec.Info{}, err
		}
	}
	client := plugin.NewClient(in.clientConfig())
	defer client.Kill()
	rpc, err := client.Client()
	if err != nil {
		return spec.Info{}, fmt.Errorf("start %s: %w", sp.Path, sandboxError(sp.Sandbox, sp.Name, err))
	}
	raw, err := rpc.Dispense(pluginrpc.NameBase)
	if err != nil {
		return spec.Info{}, err
	}
	return raw.(*pluginrpc.BaseClient).Info(ctx)
}
