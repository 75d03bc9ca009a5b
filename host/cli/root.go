package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/hcl/v2"
	"github.com/spf13/cobra"

	"github.com/axonhq/axon/hcl/config"
)

// errReported means the error was already printed (diagnostics): exit 1
// without repeating it.
var errReported = errors.New("reported")

// env is the process's view of the world, injected for tests.
type env struct {
	stdout, stderr io.Writer
	lookupEnv      func(string) (string, bool)
	home           string
	exeDir         string
}

type globals struct {
	env
	configFlag string
	files      map[string]*hcl.File // sources of the loaded configuration, for diagnostics
	pluginDir  string
	logLevel   string
}

// Execute runs the command line and returns the process exit code.
func Execute(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	home, _ := os.UserHomeDir()
	exe, _ := os.Executable()
	g := &globals{env: env{stdout: stdout, stderr: stderr, lookupEnv: os.LookupEnv, home: home, exeDir: filepath.Dir(exe)}}
	root := newRoot(g)
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	if err := root.ExecuteContext(ctx); err != nil {
		var code exitCode
		if errors.As(err, &code) {
			return int(code)
		}
		if !errors.Is(err, errReported) {
			fmt.Fprintln(stderr, "axon:", err)
		}
		return 1
	}
	return 0
}

// exitCode ends a command with a specific code, having printed its reason.
type exitCode int

func (c exitCode) Error() string { return fmt.Sprintf("exit %d", int(c)) }

func newRoot(g *globals) *cobra.Command {
	root := &cobra.Command{
		Use:           "axon",
		Short:         "axon is an LLM broker: the sole credential holder and network egress for model calls",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.PersistentFlags().StringVar(&g.configFlag, "config", "", "configuration file (default: $AXON_CONFIG, ~/.config/axon/axon.hcl, or the built-in one)")
	root.PersistentFlags().StringVar(&g.pluginDir, "plugin-dir", "", "directory of plugin binaries (overrides axon { plugin_dir })")
	root.PersistentFlags().StringVar(&g.logLevel, "log-level", "info", "trace, debug, info, warn or error")
	root.AddCommand(newServe(g), newReload(g), newAsk(g), newMCP(g), newRun(g), newSessions(g), newStats(g), newWAL(g), newCheck(g), newPlugins(g), newToken(g), newVersion(g))
	return root
}

// load reads the configuration and its lock file, printing diagnostics
// (warnings too) with their source lines.
func (g *globals) load() (*config.Config, *config.Lock, error) {
	loader := config.NewLoader(config.Options{LookupEnv: g.lookupEnv, HomeDir: g.home, ExecutableDir: g.exeDir})
	cfg, diags := loader.Load(g.configFlag)
	g.files = loader.Files()
	if len(diags) > 0 {
		config.WriteDiagnostics(g.stderr, loader.Files(), diags)
	}
	if diags.HasErrors() {
		return nil, nil, errReported
	}
	if g.pluginDir != "" {
		abs, err := filepath.Abs(g.pluginDir)
		if err != nil {
			return nil, nil, err
		}
		cfg.Axon.PluginDir = abs
	}
	lock, files, ldiags := config.LoadLock(cfg.LockPath())
	if len(ldiags) > 0 {
		config.WriteDiagnostics(g.stderr, files, ldiags)
	}
	if ldiags.HasErrors() {
		return nil, nil, errReported
	}
	return cfg, lock, nil
}

func (g *globals) logger() hclog.Logger {
	return hclog.New(&hclog.LoggerOptions{Name: "axon", Output: g.stderr, Level: hclog.LevelFromString(g.logLevel)})
}
