package sdktest

import (
	"encoding/json"
	"regexp"
	"testing"

	"github.com/axonhq/axon/sdk"
)

var (
	nameRE      = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,63}$`)
	schemaTypes = map[string]bool{
		"string": true, "number": true, "bool": true,
		"list(string)": true, "list(number)": true, "map(string)": true, sdk.TypePath: true,
	}
)

// checkInfo is the part of every conformance suite that looks at Info.
func checkInfo(t *testing.T, kind sdk.Kind, info sdk.Info) {
	t.Helper()
	if !nameRE.MatchString(info.Name) {
		t.Errorf("Info.Name %q: want lowercase [a-z0-9_-], starting with a letter", info.Name)
	}
	if info.Kind != kind {
		t.Errorf("Info.Kind = %q, want %q", info.Kind, kind)
	}
	seen := map[string]bool{}
	for _, a := range info.Config.Attributes {
		if !nameRE.MatchString(a.Name) {
			t.Errorf("config attribute %q: bad name", a.Name)
		}
		if seen[a.Name] {
			t.Errorf("config attribute %q declared twice", a.Name)
		}
		seen[a.Name] = true
		if !schemaTypes[a.Type] {
			t.Errorf("config attribute %q: type %q is not one of string, number, bool, list(string), list(number), map(string), path", a.Name, a.Type)
		}
		if len(a.Default) > 0 && !json.Valid(a.Default) {
			t.Errorf("config attribute %q: default %q is not a JSON literal", a.Name, a.Default)
		}
		if a.Required && len(a.Default) > 0 {
			t.Errorf("config attribute %q: required attributes take no default", a.Name)
		}
	}
	switch info.Auth.Scheme {
	case sdk.AuthNone, sdk.AuthBearer:
	case sdk.AuthHeader, sdk.AuthQuery:
		if info.Auth.Name == "" {
			t.Errorf("Info.Auth: scheme %q needs a Name", info.Auth.Scheme)
		}
	default:
		t.Errorf("Info.Auth.Scheme %q is unknown", info.Auth.Scheme)
	}
}
