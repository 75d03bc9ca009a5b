package cli

import (
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const canary = "sk-canary-9b1d3f5a7c2e4f6a8b0d"

// TestCanaryKeyNotInAskOutputOrWAL: an upstream that streams the request's
// headers back as its answer, and one that quotes the key in a 401: `axon
// ask` prints neither key, and a durable run's WAL on disk holds none.
func TestCanaryKeyNotInAskOutputOrWAL(t *testing.T) {
	keyFile := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(keyFile, []byte(canary), 0o600); err != nil {
		t.Fatal(err)
	}
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "data: {\"id\":\"c\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":%q}}]}\n\n", "you sent "+r.Header.Get("Authorization"))
		io.WriteString(w, "data: {\"id\":\"c\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	}))
	defer echo.Close()
	quote := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		key := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"error":{"code":%q,"message":"bad key %s"}}`, key, key)
	}))
	defer quote.Close()
	state := t.TempDir()
	cfg := filepath.Join(t.TempDir(), "axon.hcl")
	text := fmt.Sprintf(`axon {
  state_dir  = %q
  plugin_dir = %q
}
provider "echo" {
  plugin     = "openai"
  base_url   = "%s/v1"
  model      = "m"
  credential = file(%q)
}
provider "quote" {
  plugin     = "openai"
  base_url   = "%s/v1"
  model      = "m"
  credential = file(%q)
}
chain "default" { providers = [provider.echo] }
chain "denied" {
  providers = [provider.quote]
  retry { backoff = "1ms" }
}
`, state, binDir, echo.URL, keyFile, quote.URL, keyFile)
	if err := os.WriteFile(cfg, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	var said strings.Builder
	for _, args := range [][]string{
		{"ask", "-v", "--config", cfg, "hi"},
		{"ask", "-v", "--config", cfg, "--chain", "denied", "hi"},
		{"--log-level", "trace", "run", "--config", cfg, "--session", "s1", "hi"},
		{"--log-level", "trace", "run", "--config", cfg, "--session", "s2", "--chain", "denied", "hi"},
	} {
		code, out, errOut := run(t, nil, args...)
		fmt.Fprintf(&said, "%v → %d\n%s\n%s\n", args, code, out, errOut)
	}
	if strings.Contains(said.String(), canary) {
		t.Fatalf("the key was printed:\n%s", said.String())
	}
	if !strings.Contains(said.String(), "you sent Bearer [redacted]") {
		t.Fatalf("the echoing upstream's answer is missing, so the test proves nothing:\n%s", said.String())
	}
	var wals int
	filepath.WalkDir(state, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if filepath.Base(path) == "wal" { // host/session names each session's log "wal"
			wals++
		}
		if strings.Contains(string(b), canary) {
			t.Errorf("%s holds the key", path)
		}
		return nil
	})
	if wals == 0 {
		t.Fatalf("no WAL was written under %s: the test proves nothing\n%s", state, said.String())
	}
}
