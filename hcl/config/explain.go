package config

import (
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// explain adds what to do to the hcl diagnostics a newcomer meets first,
// in place: an unknown function names the ones there are, and a bare word
// where a value belongs says to quote it (`env(FOO)` means env("FOO")).
func explain(diags hcl.Diagnostics, functions []string) hcl.Diagnostics {
	for _, d := range diags {
		switch d.Summary {
		case "Call to unknown function":
			d.Detail += " The functions of an axon configuration are " + strings.Join(functions, " and ") + "."
		case "Variables not allowed":
			d.Detail += " A name is a quoted string here: env(\"NAME\"), file(\"PATH\"), or a provider reference such as provider.NAME in a chain."
		}
	}
	return diags
}

// functionList is the configuration's functions as a reader sees them:
// env(NAME) and file(PATH).
func functionList() []string {
	names := []string{}
	for name := range evalContext("", "").Functions {
		names = append(names, name)
	}
	slices.Sort(names)
	for i, n := range names {
		names[i] = n + "(…)"
	}
	return names
}
