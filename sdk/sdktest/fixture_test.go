package sdktest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// writeFiles creates files (name to content) in a new directory.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const meta429 = `{"status":429,"content_type":"application/json","recorded_response_headers":{"retry-after":"7","request-id":"req_1"}}`

func TestLoadFixtures(t *testing.T) {
	t.Parallel()
	a := writeFiles(t, map[string]string{
		"b-stream.meta.json":    `{"status":200,"content_type":"text/event-stream"}`,
		"b-stream.sse":          "data: 1\n\n",
		"b-stream.request.json": `{"model":"m"}`,
		"a-error.meta.json":     meta429,
		"a-error.json":          `{"error":{}}`,
		"skipped.meta.json":     meta429,
		"skipped.json":          `{}`,
		"README.md":             "not a fixture",
	})
	b := writeFiles(t, map[string]string{
		"c-text.meta.json": `{"status":200,"content_type":"application/x-ndjson"}`,
		"c-text.txt":       "{}\n",
	})
	got := LoadFixtures(t, func(dir, name string) bool { return dir != a || name != "skipped" }, a, b)
	want := []Fixture{
		{Name: "a-error", Body: []byte(`{"error":{}}`), Status: 429, ContentType: "application/json", Header: map[string]string{"retry-after": "7", "request-id": "req_1"}},
		{Name: "b-stream", Body: []byte("data: 1\n\n"), Status: 200, ContentType: "text/event-stream"},
		{Name: "c-text", Body: []byte("{}\n"), Status: 200, ContentType: "application/x-ndjson"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("fixtures (-want +got):\n%s", diff)
	}
}

func TestLoadFixturesRefuses(t *testing.T) {
	t.Parallel()
	one := map[string]string{"x.meta.json": meta429, "x.json": "{}"}
	tests := map[string]struct {
		dirs func(t *testing.T) []string
		want string
	}{
		"a name twice": {
			dirs: func(t *testing.T) []string { return []string{writeFiles(t, one), writeFiles(t, one)} },
			want: "goldens are keyed by name",
		},
		"two bodies": {
			dirs: func(t *testing.T) []string {
				return []string{writeFiles(t, map[string]string{"x.meta.json": meta429, "x.json": "{}", "x.txt": "{}"})}
			},
			want: "2 body files",
		},
		"no body": {
			dirs: func(t *testing.T) []string { return []string{writeFiles(t, map[string]string{"x.meta.json": meta429})} },
			want: "0 body files",
		},
		"empty directory": {
			dirs: func(t *testing.T) []string { return []string{t.TempDir()} },
			want: "no fixtures",
		},
		"bad sidecar": {
			dirs: func(t *testing.T) []string {
				return []string{writeFiles(t, map[string]string{"x.meta.json": "{", "x.json": "{}"})}
			},
			want: "x.meta.json",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dirs := tc.dirs(t)
			errs := failures(t, func(tb testing.TB) { LoadFixtures(tb, nil, dirs...) })
			if len(errs) != 1 || !strings.Contains(errs[0], tc.want) {
				t.Errorf("failures %q, want one containing %q", errs, tc.want)
			}
		})
	}
}

// TestFixtureServesTheRecording: over real HTTP, a fixture answers with
// exactly the recorded status, headers and body; net/http adds no Date and
// sniffs no content type.
func TestFixtureServesTheRecording(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{"e.meta.json": meta429, "e.json": `{"error":{"type":"rate_limit_error"}}`, "n.meta.json": `{"status":502}`, "n.html": "<html>bad gateway</html>"})
	tests := map[string]struct {
		body       string
		wantStatus int
		wantHeader http.Header
	}{
		"e.json": {`{"error":{"type":"rate_limit_error"}}`, 429, http.Header{"Content-Type": {"application/json"}, "Retry-After": {"7"}, "Request-Id": {"req_1"}}},
		"n.html": {"<html>bad gateway</html>", 502, http.Header{}},
	}
	for file, tc := range tests {
		t.Run(file, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(LoadFixture(t, filepath.Join(dir, file)))
			t.Cleanup(srv.Close)
			resp, err := http.Post(srv.URL, "application/json", strings.NewReader("{}"))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			resp.Header.Del("Content-Length")
			if resp.StatusCode != tc.wantStatus || string(body) != tc.body {
				t.Errorf("got %d %q, want %d %q", resp.StatusCode, body, tc.wantStatus, tc.body)
			}
			if diff := cmp.Diff(tc.wantHeader, resp.Header); diff != "" {
				t.Errorf("headers (-want +got):\n%s", diff)
			}
		})
	}
}
