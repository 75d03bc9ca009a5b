package config

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// FuzzHCLParse loads arbitrary text as a configuration file and checks what
// axon check relies on to print a useful answer: Parse returns a Config
// exactly when no diagnostic is an error; every error points at the source;
// every range a diagnostic carries lies within the text, on the line it
// names; the diagnostics print; and loading the same text again prints the
// same diagnostics, in the same order. The seeds are the example, default,
// broken and warning configurations; make fuzz runs it longer.
func FuzzHCLParse(f *testing.F) {
	var paths []string
	for _, pattern := range []string{"testdata/*/*.hcl", "../../examples/*.hcl", "*.hcl"} {
		matches, err := filepath.Glob(pattern)
		if err != nil {
			f.Fatal(err)
		}
		paths = append(paths, matches...)
	}
	if len(paths) < 10 {
		f.Fatalf("only %d seed configurations found: %v", len(paths), paths)
	}
	for _, p := range paths {
		text, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(text)
	}
	for _, text := range []string{
		``,
		"\xef\xbb\xbfprovider \"ollama\" {}\r\nchain \"default\" { providers = [provider.ollama] }\r\n",
		`provider "x" {`,
		`provider "x" { api_key = "unterminated }`,
		"provider \"x\" {\n  note = <<EOT\nno end\n",
		`provider "é" { base_url = "http://[::1" }`,
		`chain "default" { providers = [provider.missing, 1, null] }`,
		`provider "o" { api_key = env("K", "extra") }` + "\n" + `provider "o" {}`,
		`provider "o" { api_key = file("~/../../etc/axon key") }`,
		`host { listen = "localhost:99999" }` + "\nhost {}\n",
		`provider "o" { timeout = "-1s" retries = 1e400 }`,
		"provider \"o\" {\n  \"quoted\" = 1\n  a.b = 2\n}\n",
		"# only a comment\n/* and another",
	} {
		f.Add([]byte(text))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		const name = "/etc/axon/axon.hcl"
		l := NewLoader(fuzzOptions())
		cfg, diags := l.Parse(name, text)
		if (cfg == nil) != diags.HasErrors() {
			t.Fatalf("Config %v with diagnostics %v: want a Config exactly when there is no error", cfg != nil, diags)
		}
		for _, d := range diags {
			if d.Severity == hcl.DiagError && d.Subject == nil {
				t.Errorf("error %q: %s has no source range", d.Summary, d.Detail)
			}
			for what, r := range map[string]*hcl.Range{"subject": d.Subject, "context": d.Context} {
				if r != nil {
					checkRange(t, text, name, d.Summary+" "+what, *r)
				}
			}
		}
		first := printDiagnostics(t, l.Files(), diags)

		l2 := NewLoader(fuzzOptions())
		_, again := l2.Parse(name, text)
		if second := printDiagnostics(t, l2.Files(), again); second != first {
			t.Fatalf("the same text loaded twice printed different diagnostics:\n%s\nthen:\n%s", first, second)
		}
	})
}

func fuzzOptions() Options {
	return Options{HomeDir: "/home/pi", ExecutableDir: "/opt/axon/bin", GOOS: "linux"}
}

// checkRange: r is in the file and within text, its start no later than its
// end, and each end's line is the number of LFs before it, plus one.
func checkRange(t *testing.T, text []byte, name, what string, r hcl.Range) {
	t.Helper()
	if r.Filename != name {
		t.Fatalf("%s: range in %q, want %q", what, r.Filename, name)
	}
	if r.Start.Byte < 0 || r.Start.Byte > r.End.Byte || r.End.Byte > len(text) {
		t.Fatalf("%s: range bytes %d-%d outside the %d-byte text", what, r.Start.Byte, r.End.Byte, len(text))
	}
	for _, p := range []hcl.Pos{r.Start, r.End} {
		if want := 1 + bytes.Count(text[:p.Byte], []byte("\n")); p.Line != want || p.Column < 1 {
			t.Fatalf("%s: position %+v, want line %d (column at least 1)", what, p, want)
		}
	}
}

// printDiagnostics renders diags as axon check does.
func printDiagnostics(t *testing.T, files map[string]*hcl.File, diags hcl.Diagnostics) string {
	t.Helper()
	var b bytes.Buffer
	if err := WriteDiagnostics(&b, files, diags); err != nil {
		t.Fatalf("WriteDiagnostics: %v", err)
	}
	return b.String()
}
