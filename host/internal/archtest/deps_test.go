// Package archtest checks the module's dependency rules (README.md, "Layout")
// over the whole module with `go list -deps`.
package archtest

import (
	"bufio"
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/axonhq/axon"

type pkg struct {
	path, name string
	test       bool     // a test variant ("p [p.test]") or a test main
	deps       []string // transitive
	imports    []string // direct
}

func listPackages(t *testing.T) []pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-e", "-test", "-f", "{{.ImportPath}}|{{.Name}}|{{join .Deps \" \"}}|{{join .Imports \" \"}}", module+"/...")
	cmd.Dir = "../../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []pkg
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		f := strings.SplitN(sc.Text(), "|", 4)
		if len(f) < 4 {
			continue
		}
		path, variant, _ := strings.Cut(f[0], " [") // test variants: "p [p.test]"
		test := variant != "" || strings.HasSuffix(path, ".test")
		pkgs = append(pkgs, pkg{path: path, name: f[1], test: test, deps: strings.Fields(f[2]), imports: strings.Fields(f[3])})
	}
	if len(pkgs) == 0 {
		t.Fatal("go list returned no packages")
	}
	return pkgs
}

func under(path, dir string) bool {
	p := module + "/" + dir
	return path == p || strings.HasPrefix(path, p+"/")
}

var vendorLLMSDKs = []string{
	"github.com/anthropics/", "github.com/openai/", "github.com/sashabaranov/",
	"google.golang.org/genai", "github.com/google/generative-ai-go", "github.com/charmbracelet/openai-go",
}

func TestDependencyRules(t *testing.T) {
	t.Parallel()
	rules := []struct {
		from   string   // module directory whose packages are checked
		banned []string // import path prefixes they may not depend on
		why    string
	}{
		{"host", append([]string{"periph.io/"}, vendorLLMSDKs...), "the host imports no vendor LLM SDK and no periph.io"},
		{"plugins", []string{module + "/host"}, "plugins are written like third-party code"},
		{"examples", []string{module + "/host"}, "examples are written like third-party code"},
		{"hardware", []string{module + "/host"}, "hardware glue serves plugins, not the host"},
		{"sdk", []string{module + "/host", module + "/hcl", module + "/plugins", module + "/examples", module + "/hardware"}, "the sdk stands alone"},
	}
	pkgs := listPackages(t)
	if !dependsOn(pkgs, module+"/host/supervisor", "github.com/hashicorp/go-plugin") {
		t.Fatal("the package listing lacks known dependencies; the rules below would check nothing")
	}
	for _, p := range pkgs {
		if strings.HasSuffix(p.path, ".test") {
			continue
		}
		if p.name == "hcl" && strings.HasPrefix(p.path, module) {
			t.Errorf("%s: no package may be named hcl (it shadows github.com/hashicorp/hcl/v2)", p.path)
		}
		for _, r := range rules {
			if !under(p.path, r.from) {
				continue
			}
			for _, d := range p.deps {
				for _, b := range r.banned {
					if strings.HasPrefix(d, b) && !(b == module+"/host" && r.from == "host") {
						t.Errorf("%s depends on %s: %s", p.path, d, r.why)
					}
				}
			}
		}
	}
}

func dependsOn(pkgs []pkg, path, dep string) bool {
	for _, p := range pkgs {
		if p.path != path {
			continue
		}
		for _, d := range p.deps {
			if d == dep {
				return true
			}
		}
	}
	return false
}
