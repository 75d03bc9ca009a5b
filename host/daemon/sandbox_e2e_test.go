package daemon

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/axonhq/axon/sdk"
)

// wireFixture is a recorded provider response, served by the fake upstream.
func wireFixture(t *testing.T, family, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "plugins", "testdata", "wire", family, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestFirstPartyPluginsRunSandboxed: every first-party plugin does its
// real work inside the default sandbox — the providers through the egress,
// notes and the terminal display into their granted directories, fetch
// through its egress allow list, the clock with the jail's time zones, and
// the e-paper display reaching its own configure step (this machine has no
// panel: on a Pi its block grants the device nodes, examples/pi-pet.hcl).
func TestFirstPartyPluginsRunSandboxed(t *testing.T) {
	t.Parallel()
	gemini := wireFixture(t, "gemini", "stream-generate-content-text.sse")
	ollama := wireFixture(t, "ollama", "api-chat-stream.txt")
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasSuffix(r.URL.Path, ":streamGenerateContent"):
			w.Header().Set("Content-Type", "text/event-stream")
			w.Write(gemini)
		case r.URL.Path == "/api/chat":
			w.Header().Set("Content-Type", "application/x-ndjson")
			w.Write(ollama)
		case r.URL.Path == "/page":
			w.Write([]byte("a page fetched through the egress"))
		default:
			http.NotFound(w, r)
		}
	}))
	defer up.Close()
	notes, tty := t.TempDir(), t.TempDir()
	// No faces: they would start the displays on their own, and the epd
	// checked below would be in its restart backoff instead of failing
	// its first configure in front of the test.
	r := newRig(t, `
provider "gem" {
  plugin   = "gemini"
  base_url = "`+up.URL+`"
  model    = "gemini-2.0-flash"
}
provider "llama" {
  plugin   = "ollama"
  base_url = "`+up.URL+`"
  model    = "llama3.2"
}
chain "default" { providers = [provider.gem] }
chain "local" { providers = [provider.llama] }
tool "notes" {
  dir = "`+notes+`"
  grant { read_write = ["`+notes+`"] }
}
tool "clock" {
  zone = "Europe/Berlin"
}
tool "fetch" {
  allow = ["`+up.URL+`"]
  egress { allow = ["`+up.URL+`"] }
}
display "term" {
  tty = "`+filepath.Join(tty, "screen")+`"
  grant { read_write = ["`+tty+`"] }
}
display "epd" {}
`, Options{NoFaces: true})
	sup := r.broker.Supervisor()
	ctx := context.Background()

	for _, model := range []string{"default", "local"} {
		resp := r.post("/v1/chat/completions", chatBody(model, false))
		if resp.status != 200 || !strings.Contains(resp.body, `"content":"`) {
			t.Errorf("%s chain through the sandboxed provider: %d %s", model, resp.status, resp.body)
		}
	}

	call := func(tool, name, input string) sdk.ToolResult {
		t.Helper()
		in, err := sup.Instance(tool)
		if err != nil {
			t.Fatal(err)
		}
		res, err := in.Call(ctx, sdk.Invocation{CallID: "c1", Name: name, Input: json.RawMessage(input), IdempotencyKey: "r:c1"})
		if err != nil {
			t.Fatalf("%s.%s: %v", tool, name, err)
		}
		return res
	}
	if res := call("notes", "append_note", `{"note":"log","text":"written from the jail"}`); res.IsError {
		t.Errorf("notes: %+v", res)
	}
	if entries, _ := os.ReadDir(notes); len(entries) == 0 {
		t.Error("the note did not reach the granted directory")
	}
	if res := call("clock", "now", `{}`); res.IsError || !strings.Contains(resultText(res), "Europe/Berlin") {
		t.Errorf("clock: %+v", res)
	}
	if res := call("fetch", "fetch", `{"url":"`+up.URL+`/page"}`); res.IsError || !strings.Contains(resultText(res), "fetched through the egress") {
		t.Errorf("fetch: %+v", res)
	}

	term, _ := sup.Instance("term")
	if err := term.Show(ctx, sdk.Frame{Expression: sdk.ExprHappy, Text: "hello from the jail"}); err != nil {
		t.Fatalf("term display: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(tty, "screen")); len(b) == 0 {
		t.Error("the terminal display wrote nothing into its granted directory")
	}

	// The e-paper plugin runs in its jail and looks for its panel at
	// configure: here it finds none, and says so itself (not the sandbox).
	epd, _ := sup.Instance("epd")
	if err := epd.Start(ctx); err == nil || !strings.Contains(err.Error(), `dc_pin "GPIO25": no such GPIO`) || strings.Contains(err.Error(), "sandbox:") {
		t.Errorf("epd plugin under the sandbox on a machine without the HAT: %v", err)
	}
	for _, name := range sup.Names() {
		in, _ := sup.Instance(name)
		if got := in.Layers().String(); !strings.HasPrefix(got, "user,pid,mount,net,ipc,uts,cgroup,nocaps,nnp,seccomp") {
			t.Errorf("%s runs with sandbox %s", name, got)
		}
	}
}

func resultText(res sdk.ToolResult) string {
	var b strings.Builder
	for _, p := range res.Content {
		if tp, ok := p.(sdk.Text); ok {
			b.WriteString(tp.Text)
		}
	}
	return b.String()
}
