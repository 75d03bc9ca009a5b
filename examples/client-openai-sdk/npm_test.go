package main

// The official npm client, openai at the version npm/package-lock.json pins,
// unchanged: its structured-output and cached-token calls (npm/client.mjs)
// through a real axon serve to Anthropic- and Ollama-format upstreams.

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
)

// npmDir holds the npm client: package.json, its lock file and client.mjs.
const npmDir = "npm"

// Hang guards on the npm and node processes; they synchronise nothing.
const (
	npmCITimeout = 3 * time.Minute
	nodeTimeout  = 60 * time.Second
)

// The npm runner below (needNode, npmCI, runNode) is repeated in
// examples/client-anthropic-sdk/npm_test.go: each example stands alone, and the OpenAI
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

func TestNpmClient(t *testing.T) {
	node, npm := needNode(t)
	npmCI(t, npm)
	t.Run("chat-schema", func(t *testing.T) { npmChatSchema(t, node) })
	t.Run("chat-stream", func(t *testing.T) { npmChatStream(t, node) })
	t.Run("responses-schema", func(t *testing.T) { npmResponsesSchema(t, node) })
}

// npmAnswer is what client.mjs prints of a structured answer.
type npmAnswer struct {
	Status       string          `json:"status"` // responses only
	FinishReason string          `json:"finish_reason"`
	Text         string          `json:"text"`
	Parsed       json.RawMessage `json:"parsed"`
	SchemaSent   json.RawMessage `json:"schema_sent"`
}

// checkStructured asserts that the client sent the weather schema and
// parsed the upstream's answer.
func checkStructured(t *testing.T, got npmAnswer) {
	t.Helper()
	if !sameJSON(t, got.SchemaSent, weather) {
		t.Errorf("the script sent the schema %s, not the tests' weather", got.SchemaSent)
	}
	if !sameJSON(t, got.Parsed, map[string]any{"city": "Rome", "celsius": 21.5}) {
		t.Errorf("the client parsed %s from %q", got.Parsed, got.Text)
	}
	parseWeather(t, got.Text)
}

// chat.completions.create with response_format json_schema strict, answered
// by an Anthropic-format provider: the schema arrives as output_config.format.
func npmChatSchema(t *testing.T, node string) {
	up := newUpstream(t, anthropicText("claude-test", `"input_tokens":9,"output_tokens":1`, `{"city":"Rome",`, `"celsius":21.5}`))
	a := oneProvider(t, anthropicProvider, "claude", up)
	var got npmAnswer
	runNode(t, node, "chat-schema", a.url, &got)
	checkStructured(t, got)
	if got.FinishReason != "stop" {
		t.Errorf("finish_reason %q, want stop", got.FinishReason)
	}
	checkAnthropicSchema(t, up)
}

// A streamed chat with stream_options.include_usage through an
// Anthropic-format provider: cache_read_input_tokens reaches the client as
// prompt_tokens_details.cached_tokens, counted in prompt_tokens.
func npmChatStream(t *testing.T, node string) {
	up := newUpstream(t, anthropicText("claude-test", `"input_tokens":5,"cache_read_input_tokens":40,"cache_creation_input_tokens":2,"output_tokens":1`, "Hello", " there"))
	a := oneProvider(t, anthropicProvider, "claude", up)
	var got struct {
		Text         string `json:"text"`
		Chunks       int    `json:"chunks"`
		FinishReason string `json:"finish_reason"`
		Usage        struct {
			PromptTokens     int  `json:"prompt_tokens"`
			CompletionTokens int  `json:"completion_tokens"`
			CachedTokens     *int `json:"cached_tokens"`
		} `json:"usage"`
	}
	runNode(t, node, "chat-stream", a.url, &got)
	if got.Text != "Hello there" || got.FinishReason != "stop" {
		t.Errorf("text %q, finish_reason %q: want the upstream's two words and stop", got.Text, got.FinishReason)
	}
	if u := got.Usage; u.CachedTokens == nil || *u.CachedTokens != 40 || u.PromptTokens != 47 || u.CompletionTokens != 2 {
		t.Errorf("usage %+v (cached %v): want cached_tokens 40 of 47 prompt tokens, 2 completion tokens", u, u.CachedTokens)
	}
	if got.Chunks < 3 {
		t.Errorf("%d chunks: want a delta per word and the usage chunk", got.Chunks)
	}
	if h := up.only(t).Header.Get("x-api-key"); h != upstreamKey {
		t.Errorf("the upstream got x-api-key %q", h)
	}
}

// responses.create with text.format json_schema strict, answered by an
// Ollama-format provider: the schema arrives as format.
func npmResponsesSchema(t *testing.T, node string) {
	up := newUpstream(t, ollamaText("qwen-test", 9, `{"city":"Rome","celsius":21.5}`))
	a := oneProvider(t, ollamaProvider, "local", up)
	var got npmAnswer
	runNode(t, node, "responses-schema", a.url, &got)
	checkStructured(t, got)
	if got.Status != "completed" {
		t.Errorf("status %q, want completed", got.Status)
	}
	var sent struct {
		Format json.RawMessage `json:"format"`
	}
	up.only(t).decode(t, &sent)
	if !sameJSON(t, sent.Format, weather) {
		t.Errorf("the Ollama upstream got format %s", sent.Format)
	}
}
