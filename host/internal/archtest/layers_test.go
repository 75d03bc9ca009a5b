package archtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// layer says which of the module's own packages a package may depend on,
// directly or through others. Test-only imports (the test variants) are not
// held to it: a test may use a host/internal helper.
type layer struct {
	from  string   // module-relative package path
	allow []string // module-relative paths (or "dir/..." trees) it may reach
	why   string
	// direct holds only the package's own imports to the rule, for a
	// plugin whose SDK imports reach the glue by design.
	direct bool
}

var layers = []layer{
	{"host/api", []string{"sdk"}, "the front door knows the contract, not the host", false},
	{"host/chain", []string{"sdk"}, "the chain knows the contract, not the host", false},
	{"host/wal", nil, "the log is a leaf", false},
	{"host/credential", []string{"hcl/credref", "sdk"}, "credentials resolve a configured reference and nothing else", false},
	{"host/egress", []string{"host/credential", "host/redact", "hcl/credref", "sdk"}, "the egress injects credentials and masks them, nothing more", false},
	{"sdk", nil, "the contract stands alone", false},
	{"sdk/sse", nil, "a reader of server-sent events stands alone", false},
	{"sdk/atomicfile", nil, "replacing a file stands alone", false},
	{"sdk/serve", []string{"sdk", "internal/pluginrpc/...", "internal/idletrim"}, "serving a plugin needs the contract and the glue", false},
	{"internal/pluginrpc", []string{"sdk", "internal/pluginrpc/...", "internal/idletrim"}, "the glue speaks the contract (and trims an idle plugin)", false},
	{"internal/idletrim", nil, "the idle trim knows only the Go runtime", false},
	{"examples/provider-echo", []string{"sdk", "sdk/serve"}, "the minimal plugin imports only the SDK", true},
}

// sdkImports are the only packages outside the standard library that
// package sdk may import directly.
var sdkImports = []string{"github.com/hashicorp/go-hclog"}

func allowed(dep string, allow []string) bool {
	rel, ok := strings.CutPrefix(dep, module+"/")
	if !ok {
		return true // not ours: the other rules cover third-party packages
	}
	for _, a := range allow {
		if tree, ok := strings.CutSuffix(a, "/..."); ok {
			if rel == tree || strings.HasPrefix(rel, tree+"/") {
				return true
			}
		} else if rel == a {
			return true
		}
	}
	return false
}

func TestLayering(t *testing.T) {
	t.Parallel()
	pkgs := listPackages(t)
	seen := map[string]bool{}
	for _, p := range pkgs {
		if p.test {
			continue
		}
		rel := strings.TrimPrefix(p.path, module+"/")
		for _, l := range layers {
			if rel != l.from {
				continue
			}
			seen[l.from] = true
			deps := p.deps
			if l.direct {
				deps = p.imports
			}
			for _, d := range deps {
				if !allowed(d, l.allow) {
					t.Errorf("%s depends on %s: %s", rel, strings.TrimPrefix(d, module+"/"), l.why)
				}
			}
		}
		// Nothing but the command imports the CLI.
		if rel != "host/cmd/axon" && slices.Contains(p.imports, module+"/host/cli") {
			t.Errorf("%s imports host/cli: only host/cmd/axon may", rel)
		}
		// First-party plugins reach this module only through the SDK and,
		// for displays, the hardware libraries; never hcl/ or host/.
		if under(p.path, "plugins") {
			for _, d := range p.deps {
				if strings.HasPrefix(d, module+"/") && !allowed(d, []string{"sdk/...", "hardware/...", "internal/pluginrpc/...", "internal/idletrim"}) {
					t.Errorf("%s depends on %s: plugins are written against the SDK alone", rel, strings.TrimPrefix(d, module+"/"))
				}
			}
			if strings.HasPrefix(rel, "plugins/provider-") {
				for _, d := range p.imports {
					if strings.HasPrefix(d, module+"/") && !allowed(d, []string{"sdk/..."}) {
						t.Errorf("%s imports %s: a provider imports only sdk/...", rel, strings.TrimPrefix(d, module+"/"))
					}
				}
			}
		}
		if rel == "sdk" {
			for _, d := range p.imports {
				if !isStandard(d) && !slices.Contains(sdkImports, d) {
					t.Errorf("sdk imports %s: only the standard library and %v", d, sdkImports)
				}
			}
		}
	}
	for _, l := range layers {
		if !seen[l.from] {
			t.Errorf("layer %s: no such package; the rule checks nothing", l.from)
		}
	}
}

// isStandard reports whether path is a standard-library package: its first
// element has no dot.
func isStandard(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}

// TestThirdPartyCannotImportTheGlue builds a module outside this one that
// imports internal/pluginrpc and expects the go command to refuse it: the
// go-plugin glue is never part of what a plugin author can depend on.
func TestThirdPartyCannotImportTheGlue(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"go.mod": "module example.com/thirdparty\n\ngo 1.26.0\n\nrequire github.com/axonhq/axon v0.0.0\n\nreplace github.com/axonhq/axon => " + root + "\n",
		"go.sum": string(sum),
		"main.go": `package main

import (
	_ "github.com/axonhq/axon/internal/pluginrpc"
	_ "github.com/axonhq/axon/sdk/serve"
)

func main() {}
`,
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("go", "build", "-mod=mod", "-o", os.DevNull, ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatal("a third-party module imported internal/pluginrpc")
	}
	if !strings.Contains(string(out), "use of internal package github.com/axonhq/axon/internal/pluginrpc not allowed") {
		t.Fatalf("the build failed, but not on the internal-package rule:\n%s", out)
	}
	if strings.Contains(string(out), "sdk/serve") {
		t.Errorf("sdk/serve should be importable by a third party:\n%s", out)
	}
}
