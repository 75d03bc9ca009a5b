package supervisor

import (
	"context"
	"errors"
	"io"
	"os"
	"strconv"
	"sync"

	"github.com/hashicorp/go-plugin/runner"

	"github.com/axonhq/axon/host/sandbox"
)

// jailRunner runs a plugin in its jail for go-plugin (ClientConfig.RunnerFunc):
// go-plugin negotiates over its stdout and logs its stderr as with a plain
// command; the jail's socket directory is mounted at the same path inside,
// so addresses need no translation.
type jailRunner struct {
	proc   *sandbox.Process
	name   string
	stdout io.ReadCloser
	stderr io.ReadCloser

	mu  sync.Mutex
	pid int
}

var _ runner.Runner = (*jailRunner)(nil)

func newJailRunner(proc *sandbox.Process, name string) (*jailRunner, error) {
	stdout, err := proc.Cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stderr, err := proc.Cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	return &jailRunner{proc: proc, name: name, stdout: stdout, stderr: stderr}, nil
}

func (r *jailRunner) Start(context.Context) error {
	if err := r.proc.Start(); err != nil {
		return err
	}
	r.mu.Lock()
	r.pid = r.proc.Cmd.Process.Pid
	r.mu.Unlock()
	return nil
}

func (r *jailRunner) Wait(context.Context) error { return r.proc.Cmd.Wait() }

// Kill kills the jail's first process; the kernel then kills everything
// else in its PID namespace.
func (r *jailRunner) Kill(context.Context) error {
	if p := r.proc.Cmd.Process; p != nil {
		if err := p.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
			return err
		}
	}
	return nil
}

func (r *jailRunner) Stdout() io.ReadCloser { return r.stdout }
func (r *jailRunner) Stderr() io.ReadCloser { return r.stderr }
func (r *jailRunner) Name() string          { return r.name }

func (r *jailRunner) ID() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.pid == 0 {
		return ""
	}
	return strconv.Itoa(r.pid)
}

// Diagnose is asked when the plugin never completed the handshake: the
// init's report names the layer that could not be set up.
func (r *jailRunner) Diagnose(context.Context) string {
	r.Kill(context.Background())
	if err := r.proc.Failure(); err != nil {
		return err.Error()
	}
	return ""
}

func (r *jailRunner) PluginToHost(network, addr string) (string, string, error) {
	return network, addr, nil
}

func (r *jailRunner) HostToPlugin(network, addr string) (string, string, error) {
	return network, addr, nil
}
