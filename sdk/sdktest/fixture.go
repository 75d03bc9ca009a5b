package sdktest

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Fixture is one recorded upstream response: a body file <name>.<ext> and
// its sidecar <name>.meta.json (status, content_type and
// recorded_response_headers, the layout of plugins/testdata/wire). It is an
// http.Handler that replays the response to every request, so
// NewFakeEgress(t, fixture) puts a plugin in front of the recorded bytes.
type Fixture struct {
	Name        string // the file name without extension; goldens are keyed by it
	Body        []byte
	Status      int
	ContentType string
	Header      map[string]string
}

type fixtureMeta struct {
	Status      int               `json:"status"`
	ContentType string            `json:"content_type"`
	Headers     map[string]string `json:"recorded_response_headers"`
}

// ServeHTTP answers with the recorded status, content type, headers and
// body, and nothing else: net/http's own Date and sniffed Content-Type are
// suppressed, so a plugin sees only what was recorded.
func (f Fixture) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	h := w.Header()
	h["Date"] = nil
	h["Content-Type"] = nil
	for k, v := range f.Header {
		h.Set(k, v)
	}
	if f.ContentType != "" {
		h.Set("Content-Type", f.ContentType)
	}
	w.WriteHeader(f.Status)
	_, _ = w.Write(f.Body)
}

// LoadFixture reads the fixture whose body is at bodyPath, with the
// sidecar beside it.
func LoadFixture(t testing.TB, bodyPath string) Fixture {
	t.Helper()
	name := strings.TrimSuffix(bodyPath, filepath.Ext(bodyPath))
	f := Fixture{Name: filepath.Base(name)}
	metaPath := name + ".meta.json"
	raw, err := os.ReadFile(metaPath)
	if err != nil {
		t.Fatalf("fixture sidecar: %v", err)
	}
	var meta fixtureMeta
	if err := json.Unmarshal(raw, &meta); err != nil {
		t.Fatalf("%s: %v", metaPath, err)
	}
	if f.Body, err = os.ReadFile(bodyPath); err != nil {
		t.Fatalf("fixture body: %v", err)
	}
	f.Status, f.ContentType, f.Header = meta.Status, meta.ContentType, meta.Headers
	return f
}

// LoadFixtures reads every fixture in dirs that keep accepts (nil keeps
// all; dir is passed as given), sorted by name. Each <name>.meta.json must have exactly one
// body file beside it (a <name>.request.json, the recorded request, is not
// one). The test fails when a directory yields no fixture, or when a name
// appears twice, since goldens are keyed by name.
func LoadFixtures(t testing.TB, keep func(dir, name string) bool, dirs ...string) []Fixture {
	t.Helper()
	var all []Fixture
	seen := map[string]string{}
	for _, dir := range dirs {
		metas, err := filepath.Glob(filepath.Join(dir, "*.meta.json"))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, mp := range metas {
			name := strings.TrimSuffix(filepath.Base(mp), ".meta.json")
			if keep != nil && !keep(dir, name) {
				continue
			}
			if other, ok := seen[name]; ok {
				t.Fatalf("fixture name %q is in both %s and %s: goldens are keyed by name", name, other, dir)
			}
			seen[name] = dir
			all = append(all, LoadFixture(t, bodyFile(t, dir, name)))
			n++
		}
		if n == 0 {
			t.Fatalf("no fixtures in %s", dir)
		}
	}
	slices.SortFunc(all, func(a, b Fixture) int { return strings.Compare(a.Name, b.Name) })
	return all
}

// bodyFile is the one body file of fixture name in dir.
func bodyFile(t testing.TB, dir, name string) string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, name+".*"))
	if err != nil {
		t.Fatal(err)
	}
	var bodies []string
	for _, f := range files {
		if ext := strings.TrimPrefix(filepath.Base(f), name); ext != ".meta.json" && ext != ".request.json" {
			bodies = append(bodies, f)
		}
	}
	if len(bodies) != 1 {
		t.Fatalf("fixture %s in %s: %d body files %q, want exactly one", name, dir, len(bodies), bodies)
	}
	return bodies[0]
}
