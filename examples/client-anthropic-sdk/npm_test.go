package main

// The official npm client, @anthropic-ai/sdk at the version npm/package-lock.json
// pins, unchanged: its prompt-caching, streaming and structured-output calls
// (npm/client.mjs) through a real axon serve to an Anthropic-format upstream.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// npmDir holds the npm client: package.json, its lock file and client.mjs.
const npmDir = "npm"

// Hang guards on the npm and node processes; they synchronise nothing.
const (
	npmCITimeout = 3 * time.Minute
	nodeTimeout  = 60 * time.Second
)

// The npm runner below (needNode, npmCI, runNode) is repeated in
// examples/client-openai-sdk/npm_test.go: each example stands alone, and the OpenAI
// one is a Go module of its own that imports nothing of axon.

// needNode returns the paths of node and npm. Without them the test fails as
// root, who can install them with `make test-deps`, and skips otherwise, as
// the browser tests do without Chromium.
func needNode(t *testing.T) (node, npm string) {
	t.Helper()
	var missing []string
	node, err := exec.LookPath("node")
	if err != nil {
		missing = append(missing, "node")
	}
	npm, err = exec.LookPath("npm")
	if err != nil {
		missing = append(missing, "npm")
	}
	if len(missing) > 0 {
		msg := fmt.Sprintf("npm client: %s not on $PATH; run `make test-deps` (as root it installs Debian's nodejs and npm)", strings.Join(missing, " and "))
		if os.Geteuid() == 0 {
			t.Fatal(msg) // CI is root: there, a missing node is a failure
		}
		// Only root can apt-get them, and make test-deps does not sudo: a
		// developer without node gets the reason and the fix, not a red
		// run for a tool the test cannot install.
		t.Skip(msg)
	}
	return node, npm
}

// npmCI installs exactly what npm/package-lock.json pins into
// npm/node_modules. npm's cache, HOME and TMPDIR are temp dirs of t, so it
// writes nothing else; no install scripts run.
func npmCI(t *testing.T, npm string) {
	t.Helper()
	dir := t.TempDir()
	env := os.Environ()
	for _, d := range []string{"cache", "home", "tmp"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	env = append(env, // later entries win
		"npm_config_cache="+filepath.Join(dir, "cache"),
		"HOME="+filepath.Join(dir, "home"),
		"TMPDIR="+filepath.Join(dir, "tmp"),
		"npm_config_update_notifier=false")
	ctx, cancel := context.WithTimeout(context.Background(), npmCITimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts")
	cmd.Dir, cmd.Env, cmd.WaitDelay = npmDir, env, 5*time.Second
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm ci in %s (the registry must be reachable): %v\n%s", npmDir, err, out)
	}
}

// runNode runs `node client.mjs mode url default` with a fresh HOME and
// decodes the JSON it prints into v. It fails the test when node fails, or
// when the credential only axon holds shows up in anything node wrote.
func runNode(t *testing.T, node, mode, url string, v any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), nodeTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "client.mjs", mode, url, "default")
	var stdout, stderr bytes.Buffer
	cmd.Dir, cmd.Stdout, cmd.Stderr, cmd.WaitDelay = npmDir, &stdout, &stderr, 5*time.Second
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
	err := cmd.Run()
	if strings.Contains(stdout.String()+stderr.String(), upstreamKey) {
		t.Errorf("the upstream credential reached the npm client:\n%s%s", &stdout, &stderr)
	}
	if err != nil {
		t.Fatalf("node client.mjs %s: %v\nstdout: %s\nstderr: %s", mode, err, &stdout, &stderr)
	}
	if err := json.Unmarshal(stdout.Bytes(), v); err != nil {
		t.Fatalf("node client.mjs %s printed no JSON: %v\n%s", mode, err, &stdout)
	}
}

// npmAnswer is what client.mjs prints of a message.
type npmAnswer struct {
	ID         string `json:"id"`
	StopReason string `json:"stop_reason"`
	Text       string `json:"text"`
	TextEvents *int   `json:"text_events"` // stream only
	Usage      struct {
		InputTokens              int `json:"input_tokens"`
		OutputTokens             int `json:"output_tokens"`
		CacheReadInputTokens     int `json:"cache_read_input_tokens"`
		CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	} `json:"usage"`
	ParsedOutput map[string]any `json:"parsed_output"` // structured only
	SchemaSent   map[string]any `json:"schema_sent"`   // structured only
}

func TestNpmClient(t *testing.T) {
	node, npm := needNode(t)
	npmCI(t, npm)
	t.Run("caching", func(t *testing.T) { t.Parallel(); npmCaching(t, node, "caching") })
	t.Run("stream", func(t *testing.T) { t.Parallel(); npmCaching(t, node, "stream") })
	t.Run("structured", func(t *testing.T) { t.Parallel(); npmStructured(t, node) })
}

// npmCaching: messages.create (or messages.stream) with cache_control on a
// system block (ttl 1h), a user content block and a tool; the upstream gets
// each breakpoint where the client put it, and the cache reads and writes
// it reports reach the client's usage.
func npmCaching(t *testing.T, node, mode string) {
	up := newUpstream(t, anthropicCached("claude-test-20250101", "Cached answer."))
	ax := oneProvider(t, anthropicProvider, "claude", up)
	var got npmAnswer
	runNode(t, node, mode, ax.url, &got)

	if got.Text != "Cached answer." || got.StopReason != "end_turn" || !strings.HasPrefix(got.ID, "msg_") {
		t.Errorf("the client got %+v: want the text, end_turn and a msg_ id", got)
	}
	u := got.Usage
	if u.InputTokens != 12 || u.CacheReadInputTokens != 900 || u.CacheCreationInputTokens != 1800 || u.OutputTokens != 7 {
		t.Errorf("usage %+v: want 12 input, 900 cache reads, 1800 cache writes, 7 output", u)
	}
	if mode == "stream" && (got.TextEvents == nil || *got.TextEvents != 1) {
		t.Errorf("the stream had %v text events, want the upstream's 1", got.TextEvents)
	}

	reqs := up.received()
	if len(reqs) != 1 {
		t.Fatalf("upstream got %d requests, want 1", len(reqs))
	}
	checkCredential(t, reqs[0])
	var body struct {
		System   []map[string]any `json:"system"`
		Messages []struct {
			Role    string           `json:"role"`
			Content []map[string]any `json:"content"`
		} `json:"messages"`
		Tools []map[string]any `json:"tools"`
	}
	if err := json.Unmarshal(reqs[0].Body, &body); err != nil {
		t.Fatalf("upstream body %s: %v", reqs[0].Body, err)
	}
	ephemeral := map[string]any{"type": "ephemeral"}
	wantSystem := []map[string]any{
		{"type": "text", "text": "You are a meteorologist. The manual follows.", "cache_control": map[string]any{"type": "ephemeral", "ttl": "1h"}},
		{"type": "text", "text": "Answer in one sentence."},
	}
	if d := cmp.Diff(wantSystem, body.System); d != "" {
		t.Errorf("system blocks the upstream received (-want +got):\n%s", d)
	}
	if len(body.Messages) != 1 || len(body.Messages[0].Content) != 1 {
		t.Fatalf("upstream messages %+v, want one user message of one block", body.Messages)
	}
	wantBlock := map[string]any{"type": "text", "text": "What does the manual say about fog?", "cache_control": ephemeral}
	if d := cmp.Diff(wantBlock, body.Messages[0].Content[0]); d != "" {
		t.Errorf("user block the upstream received (-want +got):\n%s", d)
	}
	if len(body.Tools) != 1 || body.Tools[0]["name"] != "lookup_manual" {
		t.Fatalf("upstream tools %v, want lookup_manual", body.Tools)
	}
	if d := cmp.Diff(ephemeral, body.Tools[0]["cache_control"]); d != "" {
		t.Errorf("the tool's cache_control the upstream received (-want +got):\n%s", d)
	}
}

// npmStructured: messages.parse with output_config.format json_schema; the
// schema reaches the upstream as the SDK sent it, and the SDK parses the
// JSON answer into parsed_output.
func npmStructured(t *testing.T, node string) {
	const answer = `{"city":"Rome","celsius":21}`
	up := newUpstream(t, anthropicText("claude-test-20250101", 30, answer))
	ax := oneProvider(t, anthropicProvider, "claude", up)
	var got npmAnswer
	runNode(t, node, "structured", ax.url, &got)

	if d := cmp.Diff(map[string]any{"city": "Rome", "celsius": float64(21)}, got.ParsedOutput); d != "" {
		t.Errorf("parsed_output (-want +got):\n%s", d)
	}
	if got.Text != answer {
		t.Errorf("text %q, want %q", got.Text, answer)
	}
	schema := map[string]any{
		"type":                 "object",
		"properties":           map[string]any{"city": map[string]any{"type": "string"}, "celsius": map[string]any{"type": "integer"}},
		"required":             []any{"city", "celsius"},
		"additionalProperties": false,
	}
	if d := cmp.Diff(schema, got.SchemaSent); d != "" {
		t.Errorf("the schema the SDK built (-want +got):\n%s", d)
	}

	reqs := up.received()
	if len(reqs) != 1 {
		t.Fatalf("upstream got %d requests, want 1", len(reqs))
	}
	checkCredential(t, reqs[0])
	checkSchemaSent(t, reqs[0], got.SchemaSent)
}
