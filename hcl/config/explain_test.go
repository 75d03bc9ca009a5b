package config

import (
	"strings"
	"testing"
)

// TestNewcomerDiagnosticsSayWhatToDo: an unknown function lists the ones
// there are; an unquoted name says to quote it. Each still points at its
// line.
func TestNewcomerDiagnosticsSayWhatToDo(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, value, summary, want string
	}{
		{"unknown function", `vault("x")`, "Call to unknown function", `There is no function named "vault". The functions of an axon configuration are env(…) and file(…).`},
		{"unquoted name", `env(FOO)`, "Variables not allowed", `A name is a quoted string here: env("NAME")`},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			text := "provider \"x\" {\n  preset     = \"ollama\"\n  credential = " + c.value + "\n}\nchain \"default\" { providers = [provider.x] }\n"
			_, diags := NewLoader(testOptions(nil)).Parse("axon.hcl", []byte(text))
			for _, d := range diags {
				if d.Summary != c.summary {
					continue
				}
				if !strings.Contains(d.Detail, c.want) {
					t.Errorf("detail %q lacks %q", d.Detail, c.want)
				}
				if d.Subject == nil || d.Subject.Start.Line != 3 {
					t.Errorf("subject %v, want line 3", d.Subject)
				}
				return
			}
			t.Fatalf("no %q diagnostic in %v", c.summary, diags)
		})
	}
}
