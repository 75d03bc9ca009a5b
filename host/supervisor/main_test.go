package supervisor

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/axonhq/axon/host/internal/logbuf"
	"github.com/axonhq/axon/sdk/spec"
)

// Plugin binaries built once for the package's tests.
var bins = map[string]string{
	"echo":    "../../examples/provider-echo",
	"hostile": "../internal/testplugin",
}

var binDir string

func TestMain(m *testing.M) {
	if dir := os.Getenv(childBinDirEnv); dir != "" {
		// Re-executed as an unprivileged user by TestUnprivilegedSandbox:
		// the plugins are already built.
		for name := range bins {
			bins[name] = filepath.Join(dir, "axon-provider-"+name)
		}
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "axon-supervisor-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	for name, pkg := range bins {
		out := filepath.Join(dir, "axon-provider-"+name)
		if b, err := exec.Command("go", "build", "-o", out, pkg).CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "build %s: %v\n%s", pkg, err, b)
			os.RemoveAll(dir)
			os.Exit(1)
		}
		bins[name] = out
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// newSupervisor returns a supervisor logging into logs, closed at test end.
func newSupervisor(t *testing.T, logs *logbuf.Buffer, opts Options) *Supervisor {
	t.Helper()
	s := New(hclog.New(&hclog.LoggerOptions{Name: "axon", Output: logs, Level: hclog.Trace}), opts)
	t.Cleanup(s.Close)
	return s
}

func ask(text string) *spec.Request {
	return &spec.Request{Messages: []spec.Message{{Role: spec.RoleUser, Parts: []spec.Part{spec.Text{Text: text}}}}}
}

// collect runs one Generate and returns the events and the joined text.
func collect(ctx context.Context, in *Instance, text string) ([]spec.Event, string, error) {
	var events []spec.Event
	var sb strings.Builder
	err := in.Generate(ctx, ask(text), spec.SinkFunc(func(_ context.Context, ev spec.Event) error {
		events = append(events, ev)
		sb.WriteString(ev.Text)
		return nil
	}))
	return events, sb.String(), err
}

func nullLogger() hclog.Logger { return hclog.NewNullLogger() }
