package sdktest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Golden compares got with the file at path, or, when update is set,
// rewrites that file (creating its directory) instead.
//
// update is a parameter, not a flag of this package: a flag defined here
// would be registered in every test binary that imports sdktest and clash
// with the package's own -update. Define it once per test package:
//
//	var update = flag.Bool("update", false, "rewrite the golden files")
//
// and pass false from a test that must never rewrite a golden file (one
// replaying a variant of the input, say), so a variant cannot mask a
// difference under -update.
func Golden(t testing.TB, path string, got []byte, update bool) {
	t.Helper()
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs from the golden file (-want +got):\n%s", path, diff)
	}
}

// GoldenJSON is Golden for v written as indented JSON with a final newline
// (a json.RawMessage is indented as it stands).
func GoldenJSON(t testing.TB, path string, v any, update bool) {
	t.Helper()
	got, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	Golden(t, path, append(got, '\n'), update)
}
