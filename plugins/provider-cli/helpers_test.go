package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/axonhq/axon/sdk"
	"github.com/axonhq/axon/sdk/sdktest"
)

// fakeCLI is host/internal/testcli, built once for the package's tests: a
// fake client that answers, fails, hangs or crashes as its prompt says.
var fakeCLI string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "provider-cli-test")
	if err == nil {
		fakeCLI = filepath.Join(dir, "testcli")
		cmd := exec.Command("go", "build", "-o", fakeCLI, "../../host/internal/testcli")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, berr := cmd.CombinedOutput(); berr != nil {
			err = fmt.Errorf("build testcli: %v\n%s", berr, out)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// fakeHome is a home directory for the fake client, logged in or not.
func fakeHome(t testing.TB, loggedIn bool) string {
	t.Helper()
	home := t.TempDir()
	if loggedIn {
		if err := os.MkdirAll(filepath.Join(home, ".fakecli"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(home, ".fakecli", "credentials"), []byte("token"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return home
}

// The three ways of reading the fake, configured as a preset would be for
// Claude Code.
var modes = map[string]map[string]any{
	parseText: {
		"command":        []string{"FAKE", "-p", "{prompt}"},
		"auth_patterns":  []string{`Invalid API key`, `Please run /login`},
		"quota_patterns": []string{`usage limit reached`},
	},
	parseJSON: {
		"command":            []string{"FAKE", "-p", "{prompt}", "--output-format", "json"},
		"parse":              "json",
		"text_path":          "result",
		"error_path":         "is_error",
		"input_tokens_path":  "usage.input_tokens",
		"output_tokens_path": "usage.output_tokens",
		"auth_patterns":      []string{`Invalid API key`, `Please run /login`},
		"quota_patterns":     []string{`usage limit reached`},
	},
	parseJSONL: {
		"command":            []string{"FAKE", "-p", "{prompt}", "--output-format", "stream-json", "--verbose"},
		"parse":              "jsonl",
		"text_path":          "[type=assistant].message.content.*[type=text].text",
		"result_path":        "[type=result].result",
		"error_path":         "[type=result].is_error",
		"input_tokens_path":  "[type=result].usage.input_tokens",
		"output_tokens_path": "[type=result].usage.output_tokens",
		"auth_patterns":      []string{`Invalid API key`, `Please run /login`},
		"quota_patterns":     []string{`usage limit reached`},
	},
}

// values is mode's configuration with FAKE replaced by the built fake and
// extra laid over it, as JSON with the schema's defaults applied.
func values(t testing.TB, mode string, extra map[string]any) json.RawMessage {
	t.Helper()
	v := map[string]any{}
	for k, x := range modes[mode] {
		v[k] = x
	}
	for k, x := range extra {
		v[k] = x
	}
	cmd := append([]string(nil), v["command"].([]string)...)
	for i, a := range cmd {
		if a == "FAKE" {
			cmd[i] = fakeCLI
		}
	}
	v["command"] = cmd
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	full, err := sdktest.ApplyDefaults(schema(), raw)
	if err != nil {
		t.Fatalf("config: %v", err)
	}
	return full
}

// newCLI is a plugin configured with values whose own HOME is home and
// whose TMPDIR is a fresh directory.
func newCLI(t testing.TB, home string, vals json.RawMessage, proxy string) *cli {
	t.Helper()
	tmp := t.TempDir()
	p := &cli{getenv: func(k string) string {
		switch k {
		case "HOME":
			return home
		case "TMPDIR":
			return tmp
		}
		return ""
	}}
	if err := p.Configure(context.Background(), sdk.Config{Values: vals, Proxy: proxy}); err != nil {
		t.Fatalf("Configure: %v", err)
	}
	return p
}

func userRequest(text string) *sdk.Request {
	return &sdk.Request{Messages: []sdk.Message{{Role: sdk.RoleUser, Parts: []sdk.Part{sdk.Text{Text: text}}}}}
}

// generate runs one Generate, checks the stream's invariants and returns
// the events and the error.
func generate(t testing.TB, p *cli, req *sdk.Request) ([]sdk.Event, error) {
	t.Helper()
	var rec sdktest.Recorder
	err := p.Generate(context.Background(), req, &rec)
	events := rec.Events()
	sdktest.CheckStream(t, events, err)
	return events, err
}

// answer is the text of events' deltas.
func answer(events []sdk.Event) string {
	var b strings.Builder
	for _, ev := range events {
		if ev.Type == sdk.EventTextDelta {
			b.WriteString(ev.Text)
		}
	}
	return b.String()
}

func countType(events []sdk.Event, typ sdk.EventType) int {
	n := 0
	for _, ev := range events {
		if ev.Type == typ {
			n++
		}
	}
	return n
}
