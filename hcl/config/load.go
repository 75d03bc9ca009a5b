package config

import (
	_ "embed"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"runtime"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

//go:embed default.hcl
var defaultHCL []byte

// Pseudo-file names used in diagnostics for configurations that are not
// files on disk.
const (
	embeddedFile  = "<built-in default.hcl>"
	generatedFile = "<generated from $AXON_CHAIN>"
	chainEnvFile  = "$AXON_CHAIN"
)

// Options are the loader's view of its process. Everything is injected so
// that tests are hermetic.
type Options struct {
	// LookupEnv reads an environment variable (os.LookupEnv in the CLI).
	// Nil means an empty environment. It is used only for AXON_CONFIG,
	// AXON_CHAIN and the AXON_CHAIN presets' variables, never by env().
	LookupEnv func(string) (string, bool)
	// HomeDir expands "~" and locates ~/.config/axon/axon.hcl.
	HomeDir string
	// ExecutableDir is where the axon binary lives: the default plugin_dir.
	ExecutableDir string
	// GOOS decides the default sandbox; runtime.GOOS when empty.
	GOOS string
	// Stat reads a path's metadata, os.Stat when nil. The loader uses it
	// only to check that a block's home directory exists.
	Stat func(string) (fs.FileInfo, error)
}

// Loader reads configurations and keeps every source it parsed, so that
// diagnostics can be printed with their source lines. It is not safe for
// concurrent use.
type Loader struct {
	opts  Options
	files map[string]*hcl.File
}

// NewLoader returns a loader; it touches nothing until Load.
func NewLoader(opts Options) *Loader {
	return &Loader{opts: opts, files: map[string]*hcl.File{}}
}

// Files returns the sources parsed so far, keyed by the file names that
// diagnostics use, for WriteDiagnostics.
func (l *Loader) Files() map[string]*hcl.File { return maps.Clone(l.files) }

func (l *Loader) lookupEnv(name string) (string, bool) {
	if l.opts.LookupEnv == nil {
		return "", false
	}
	return l.opts.LookupEnv(name)
}

func (l *Loader) stat(name string) (fs.FileInfo, error) {
	if l.opts.Stat == nil {
		return os.Stat(name)
	}
	return l.opts.Stat(name)
}

func (l *Loader) goos() string {
	if l.opts.GOOS != "" {
		return l.opts.GOOS
	}
	return runtime.GOOS
}

// Load resolves the configuration (see Resolve), parses, decodes and
// validates it. flag is the --config value, "" when not given. The Config
// is nil when the diagnostics hold an error; warnings may accompany a
// valid Config.
func (l *Loader) Load(flag string) (*Config, hcl.Diagnostics) {
	src, err := l.Resolve(flag)
	if err != nil {
		return nil, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Cannot read the configuration",
			Detail:   err.Error() + ".",
		}}
	}
	var diags hcl.Diagnostics
	var name string
	var text []byte
	switch src.Kind {
	case SourceEmbedded:
		name, text = embeddedFile, defaultHCL
	case SourceAxonChain:
		value, _ := l.lookupEnv(envChain)
		name = generatedFile
		text, diags = l.axonChain(value)
		if diags.HasErrors() {
			return nil, diags
		}
	default:
		name = src.Path
		text, err = os.ReadFile(src.Path)
		if err != nil {
			return nil, hcl.Diagnostics{{
				Severity: hcl.DiagError,
				Summary:  "Cannot read the configuration",
				Detail:   fmt.Sprintf("%v.", err),
			}}
		}
		if v, ok := l.lookupEnv(envChain); ok && v != "" {
			diags = diags.Append(&hcl.Diagnostic{
				Severity: hcl.DiagWarning,
				Summary:  "AXON_CHAIN ignored",
				Detail:   fmt.Sprintf("$AXON_CHAIN applies only when no configuration file is found; %s is in use.", src),
			})
		}
	}
	cfg, more := l.parse(name, text, src)
	return cfg, append(diags, more...)
}

// Parse decodes configuration text that did not come through Resolve, such
// as an example file in a test. filename is used in diagnostics and as the
// base for relative paths.
func (l *Loader) Parse(filename string, text []byte) (*Config, hcl.Diagnostics) {
	return l.parse(filename, text, Source{Kind: SourceText, Path: filename})
}

func (l *Loader) parse(filename string, text []byte, src Source) (*Config, hcl.Diagnostics) {
	f, diags := hclsyntax.ParseConfig(text, filename, hcl.InitialPos)
	if f != nil {
		l.files[filename] = f
	}
	if diags.HasErrors() {
		return nil, diags
	}
	cfg, more := l.decodeFile(f, src)
	return cfg, explain(append(diags, more...), functionList())
}
