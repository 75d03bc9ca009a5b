package config

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// Markers, on the line before a ```hcl fence (blank lines between are
// allowed). invalidMarker marks a block that shows a mistake: it must fail
// to load. lockMarker marks an axon.lock.hcl, loaded with LoadLock.
const (
	invalidMarker = "<!-- hcl: invalid -->"
	lockMarker    = "<!-- hcl: lock -->"
)

// docBlock is one ```hcl fenced block of a markdown file.
type docBlock struct {
	file    string // relative to the module root
	line    int    // 1-based line of the opening fence
	text    string
	invalid bool
	lock    bool
}

func (b docBlock) String() string { return fmt.Sprintf("%s:%d", b.file, b.line) }

// TestDocsHCL loads every ```hcl block of every markdown file in the
// repository, so documentation cannot drift from the parser. A block is
// loaded alone, as if it were a whole axon.hcl. A fragment, a block with no
// chain (a single provider or tool block), gets a stub chain appended after
// its last line: over its first provider, or over a stub Ollama provider
// when it has none; everything else it needs it must define itself. The
// plugin-owned arguments of every provider, tool and display block are
// evaluated too (env(), file() and the rest), as the host would before
// handing them to the plugin; their names and types belong to the plugin's
// schema, which needs the plugin binary, so they are not checked here.
func TestDocsHCL(t *testing.T) {
	t.Parallel()
	root := moduleRoot(t)
	blocks := docBlocks(t, root)
	if len(blocks) == 0 {
		t.Fatal("no ```hcl blocks found in any markdown file")
	}
	for _, b := range blocks {
		t.Run(b.String(), func(t *testing.T) {
			t.Parallel()
			// Blank lines in place of the markdown before the block make
			// every diagnostic name the block's file and its line there.
			src := strings.Repeat("\n", b.line) + b.text
			var diags hcl.Diagnostics
			var files map[string]*hcl.File
			if b.lock {
				path := filepath.Join(t.TempDir(), filepath.Base(b.file))
				if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
					t.Fatal(err)
				}
				_, files, diags = LoadLock(path)
			} else {
				l := NewLoader(testOptions(nil))
				var cfg *Config
				cfg, diags = l.Parse(b.file, []byte(src+stubChain(b.text)))
				if !diags.HasErrors() && cfg != nil {
					diags = append(diags, evalPluginBodies(cfg)...)
				}
				files = l.Files()
			}
			failed := diags.HasErrors()
			switch {
			case b.invalid && !failed:
				t.Errorf("%s: the block is marked %s but loads without errors", b, invalidMarker)
			case !b.invalid && failed:
				t.Errorf("%s: the block does not load:\n%s", b, render(t, files, diags))
			}
		})
	}
}

// stubChain is what a fragment needs to load: "" when text has a chain or
// does not parse, else a default chain over its first provider, or over a
// stub Ollama provider when it defines none.
func stubChain(text string) string {
	f, diags := hclsyntax.ParseConfig([]byte(text), "fragment", hcl.InitialPos)
	if diags.HasErrors() {
		return ""
	}
	provider := ""
	for _, blk := range f.Body.(*hclsyntax.Body).Blocks {
		switch {
		case blk.Type == "chain":
			return ""
		case blk.Type == "provider" && provider == "" && len(blk.Labels) == 1:
			provider = blk.Labels[0]
		}
	}
	stub := ""
	if provider == "" {
		provider = "docs_stub"
		stub = "provider \"docs_stub\" {\n  preset = \"ollama\"\n}\n"
	}
	return "\n" + stub + "chain \"default\" {\n  providers = [provider." + provider + "]\n}\n"
}

// evalPluginBodies evaluates every plugin-owned argument of every plugin
// block in the block's own evaluation context, as DecodePluginBody would.
func evalPluginBodies(cfg *Config) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, pb := range cfg.PluginBlocks() {
		body, ok := pb.Body.(*hclsyntax.Body)
		if !ok {
			diags = diags.Append(&hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Test cannot read the block",
				Detail:   fmt.Sprintf("The body of %s %q is a %T, not an *hclsyntax.Body.", pb.Kind, pb.Name, pb.Body),
				Subject:  pb.DefRange.Ptr(),
			})
			continue
		}
		for name, a := range body.Attributes {
			if slices.Contains(kindNames[pb.Kind].attrs, name) {
				continue
			}
			_, more := a.Expr.Value(pb.ctx)
			diags = append(diags, more...)
		}
	}
	return diags
}

// moduleRoot is the directory holding go.mod, above the package directory.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the package directory")
		}
		dir = parent
	}
}

// docBlocks extracts the ```hcl blocks of every *.md under root, skipping
// bin/, testdata/ and hidden directories.
func docBlocks(t *testing.T, root string) []docBlock {
	t.Helper()
	var out []docBlock
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (name == "bin" || name == "testdata" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(d.Name(), ".md") {
			return nil
		}
		text, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		blocks, err := extractHCL(filepath.ToSlash(rel), text)
		if err != nil {
			return err
		}
		out = append(out, blocks...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// extractHCL returns the ```hcl fenced blocks of one markdown file. Fences
// may be indented (inside list items); the indentation of the opening fence
// is removed from the block's lines.
func extractHCL(file string, text []byte) ([]docBlock, error) {
	var (
		out      []docBlock
		cur      *docBlock
		body     strings.Builder
		indent   string
		fence    string
		lastText string // the last non-blank line outside a block
		inOther  bool   // inside a fence of another language
	)
	sc := bufio.NewScanner(bytes.NewReader(text))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		switch {
		case cur != nil:
			if strings.TrimLeft(line, " \t") == fence || trimmed == fence {
				cur.text = body.String()
				out = append(out, *cur)
				cur = nil
				continue
			}
			body.WriteString(strings.TrimPrefix(line, indent))
			body.WriteByte('\n')
		case inOther:
			if strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, "`~") == "" {
				inOther = false
			}
		case strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~"):
			marks := trimmed[:3]
			i := strings.IndexFunc(trimmed, func(r rune) bool { return r != rune(marks[0]) })
			if i < 0 {
				i = len(trimmed)
			}
			fence = trimmed[:i]
			info := strings.Fields(trimmed[i:])
			if len(info) > 0 && info[0] == "hcl" {
				indent = line[:len(line)-len(strings.TrimLeft(line, " \t"))]
				cur = &docBlock{file: file, line: n, invalid: lastText == invalidMarker, lock: lastText == lockMarker}
				body.Reset()
			} else {
				inOther = true
			}
			lastText = ""
		case trimmed != "":
			lastText = trimmed
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if cur != nil {
		return nil, fmt.Errorf("%s:%d: the ```hcl block is never closed", file, cur.line)
	}
	return out, nil
}

// TestExtractHCL checks the extractor itself: line numbers, indented
// fences, the invalid marker and fences of other languages.
func TestExtractHCL(t *testing.T) {
	t.Parallel()
	md := "# t\n" +
		"```sh\n```hcl\nnot hcl\n```\n" +
		"<!-- hcl: invalid -->\n\n" +
		"```hcl\na = 1\n```\n" +
		"- item\n\n  ```hcl\n  b = 2\n  ```\n"
	got, err := extractHCL("x.md", []byte(md))
	if err != nil {
		t.Fatal(err)
	}
	want := []docBlock{
		{file: "x.md", line: 8, text: "a = 1\n", invalid: true},
		{file: "x.md", line: 13, text: "b = 2\n"},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) || len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("extractHCL = %#v, want %#v", got, want)
	}
	if _, err := extractHCL("y.md", []byte("```hcl\na = 1\n")); err == nil || !strings.Contains(err.Error(), "y.md:1") {
		t.Errorf("unclosed block: err = %v, want one naming y.md:1", err)
	}
}

// TestReadmePresets: hcl/README.md has a row for every preset, and each
// command-line preset's row names the client version it was written for,
// its home and its egress hosts.
func TestReadmePresets(t *testing.T) {
	t.Parallel()
	text, err := os.ReadFile(filepath.Join(moduleRoot(t), "hcl", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{}
	for _, line := range strings.Split(string(text), "\n") {
		if name, _, ok := strings.Cut(strings.TrimPrefix(line, "| `"), "`"); ok && strings.HasPrefix(line, "| `") {
			rows[name] = line
		}
	}
	for _, p := range Presets() {
		row, ok := rows[p.Name]
		switch {
		case !ok:
			t.Errorf("hcl/README.md has no preset row for %q", p.Name)
		case p.WrittenFor != "" && !strings.Contains(row, "| "+p.WrittenFor+" |"):
			t.Errorf("the row of %q does not say it was written for %q:\n%s", p.Name, p.WrittenFor, row)
		case p.Home != "" && !strings.Contains(row, "`"+p.Home+"`"):
			t.Errorf("the row of %q does not name its home %s:\n%s", p.Name, p.Home, row)
		}
		for _, host := range p.Allow {
			if !strings.Contains(row, "`"+host+"`") {
				t.Errorf("the row of %q does not list its egress host %s", p.Name, host)
			}
		}
	}
}
