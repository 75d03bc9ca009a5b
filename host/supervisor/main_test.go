package supervisor

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/axonhq/axon/host/internal/logbuf"
	"github.com/axonhq/axon/host/internal/testbin"
	"github.com/axonhq/axon/sdk"
)

// binDir holds the plugin binaries built once for the package's tests:
// axon-provider-echo (examples/provider-echo), axon-provider-hostile
// (host/internal/testplugin), axon-provider-crasher (the same, built to
// exit at start) and axon-display-slowsleep (host/internal/testdisplay).
var binDir string

func bin(name string) string { return filepath.Join(binDir, "axon-provider-"+name) }

func TestMain(m *testing.M) {
	if dir := os.Getenv(childBinDirEnv); dir != "" {
		// Re-executed as an unprivileged user by TestUnprivilegedSandbox:
		// the plugins are already built.
		binDir = dir
		os.Exit(m.Run())
	}
	testbin.Main(m, &binDir,
		testbin.Target{Name: "axon-provider-echo", Pkg: "../../examples/provider-echo"},
		testbin.Target{Name: "axon-provider-hostile", Pkg: "../internal/testplugin"},
		testbin.Target{Name: "axon-provider-crasher", Pkg: "../internal/testplugin", Tags: "crashatstart"},
		testbin.Target{Name: "axon-display-slowsleep", Pkg: "../internal/testdisplay"},
	)
}

// newSupervisor returns a supervisor logging into logs, closed at test end.
func newSupervisor(t *testing.T, logs *logbuf.Buffer, opts Options) *Supervisor {
	t.Helper()
	s := New(hclog.New(&hclog.LoggerOptions{Name: "axon", Output: logs, Level: hclog.Trace}), opts)
	t.Cleanup(s.Close)
	return s
}

func ask(text string) *sdk.Request {
	return &sdk.Request{Messages: []sdk.Message{{Role: sdk.RoleUser, Parts: []sdk.Part{sdk.Text{Text: text}}}}}
}

// collect runs one Generate and returns the events and the joined text.
func collect(ctx context.Context, in *Instance, text string) ([]sdk.Event, string, error) {
	var events []sdk.Event
	var sb strings.Builder
	err := in.Generate(ctx, ask(text), sdk.SinkFunc(func(_ context.Context, ev sdk.Event) error {
		events = append(events, ev)
		sb.WriteString(ev.Text)
		return nil
	}))
	return events, sb.String(), err
}

func nullLogger() hclog.Logger { return hclog.NewNullLogger() }

// testClock is a clock for Options.clock that moves only by Advance.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func newTestClock() *testClock {
	return &testClock{now: time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)}
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}
