package daemon

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/axonhq/axon/host/internal/testbin"
)

// Structured output (issue 20), end to end: an OpenAI-format client's
// strict json_schema goes through real plugin processes to Anthropic-format
// fake upstreams as output_config; the chain checks every answer against
// the schema, falls back from one that does not match, and skips a hop
// whose plugin cannot guarantee the schema.

// weatherSchema is the client's schema.
const weatherSchema = `{"type":"object","properties":{"city":{"type":"string"},"celsius":{"type":"number"}},"required":["city","celsius"],"additionalProperties":false}`

// schemaUpstream is a fake Anthropic Messages API that answers text, and
// refuses (400) a request whose output_config is not the client's schema:
// the plugin must render Request.Output natively.
type schemaUpstream struct {
	*httptest.Server
	mu    sync.Mutex
	calls int
	bad   []string // what was wrong with each refused request
}

func newSchemaUpstream(t *testing.T, model, text string) *schemaUpstream {
	t.Helper()
	u := &schemaUpstream{}
	u.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body struct {
			OutputConfig *struct {
				Format struct {
					Type   string          `json:"type"`
					Schema json.RawMessage `json:"schema"`
				} `json:"format"`
			} `json:"output_config"`
		}
		u.mu.Lock()
		u.calls++
		u.mu.Unlock()
		why := ""
		switch err := json.Unmarshal(raw, &body); {
		case err != nil:
			why = "not JSON: " + err.Error()
		case body.OutputConfig == nil:
			why = "no output_config"
		case body.OutputConfig.Format.Type != "json_schema" || !equalJSON(body.OutputConfig.Format.Schema, weatherSchema):
			why = fmt.Sprintf("output_config.format %s %s", body.OutputConfig.Format.Type, body.OutputConfig.Format.Schema)
		}
		if why != "" {
			u.mu.Lock()
			u.bad = append(u.bad, why)
			u.mu.Unlock()
			status(http.StatusBadRequest, nil, `{"type":"error","error":{"type":"invalid_request_error","message":"fake: `+why+`"}}`)(w, r)
			return
		}
		anthropicText(model, text)(w, r)
	}))
	t.Cleanup(u.Close)
	return u
}

func (u *schemaUpstream) seen() (calls int, bad []string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.calls, append([]string(nil), u.bad...)
}

func equalJSON(a json.RawMessage, b string) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	return bytes.Equal(ja, jb)
}

// schemaChat is an OpenAI chat completion asking chain for a strict
// json_schema answer.
func schemaChat(chain string, stream bool, schema string) string {
	return fmt.Sprintf(`{"model":%q,"stream":%v,"messages":[{"role":"user","content":"Weather in Rome, as JSON."}],
	  "response_format":{"type":"json_schema","json_schema":{"name":"weather","strict":true,"schema":%s}}}`, chain, stream, schema)
}

// attemptsOf is the chain's attempts of an x-axon-trail, after the
// router's line.
func attemptsOf(trail string) string {
	if _, attempts, ok := strings.Cut(trail, "; "); ok {
		return attempts
	}
	return trail
}

func TestStructuredOutputEndToEnd(t *testing.T) {
	cliBinOnce.Do(func() { // the cli plugin, which does not declare Output, as TestCLIAdapter builds it
		cliBinErr = testbin.BuildInto(binDir,
			testbin.Target{Name: "axon-provider-cli", Pkg: "../../plugins/provider-cli"},
			testbin.Target{Name: "axon-test-cli", Pkg: "../internal/testcli"},
		)
	})
	if cliBinErr != nil {
		t.Fatal(cliBinErr)
	}
	const good = `{"city":"Rome","celsius":21.5}`
	claudeUp := newSchemaUpstream(t, "claude-sonnet-4-5-20250929", good)
	badUp := newSchemaUpstream(t, "claude-haiku-4-5", `{"city":"Rome","celsius":"warm"}`)
	noneUp := newSchemaUpstream(t, "claude-haiku-4-5", good) // its block says it cannot guarantee a schema
	key := filepath.Join(t.TempDir(), "anthropic.key")
	if err := os.WriteFile(key, []byte("sk-ant-test"), 0o600); err != nil {
		t.Fatal(err)
	}
	client := filepath.Join(binDir, "axon-test-cli")
	anthropic := func(name, url, extra string) string {
		return fmt.Sprintf(`
provider %q {
  preset     = "anthropic"
  base_url   = %q
  model      = "claude-sonnet-4-5"
  credential = file(%q)
  tier       = "api"
  enabled    = true
%s}
`, name, url, key, extra)
	}
	text := anthropic("claude", claudeUp.URL, "") + anthropic("bad", badUp.URL, "") +
		anthropic("none", noneUp.URL, "  structured_output = false\n") + fmt.Sprintf(`
provider "cli" {
  plugin  = "cli"
  command = [%q, "-p", "{prompt}"]
  home    = %q
  timeout = "3s"
  egress { allow = [%q] }
  grant { read_only = [%q] }
}
chain "strict"   { providers = [provider.claude] }
chain "fallback" { providers = [provider.bad, provider.claude] }
chain "skip"     { providers = [provider.cli, provider.claude] }
chain "nobody"   { providers = [provider.none, provider.cli] }
`, client, t.TempDir(), claudeUp.URL, client)
	r := newRigAxon(t, "billing { enabled = true }", text, "", Options{NoFaces: true})

	t.Run("the schema reaches the upstream as output_config, and a conforming answer is returned", func(t *testing.T) {
		for _, stream := range []bool{false, true} {
			resp := r.post("/v1/chat/completions", schemaChat("strict", stream, weatherSchema))
			if resp.status != http.StatusOK {
				t.Fatalf("stream=%v: %d %s", stream, resp.status, resp.body)
			}
			if got := foDoors[0].text(t, stream, resp.body); got != good { // the OpenAI client's text
				t.Errorf("stream=%v: answer %q, want %q", stream, got, good)
			}
		}
		if _, bad := claudeUp.seen(); len(bad) != 0 {
			t.Errorf("the upstream was sent requests without the schema: %q", bad)
		}
	})

	t.Run("a non-conforming answer falls back; the streaming client gets only the conforming one", func(t *testing.T) {
		before, _ := badUp.seen()
		resp := r.post("/v1/chat/completions", schemaChat("fallback", true, weatherSchema))
		if resp.status != http.StatusOK {
			t.Fatalf("%d %s", resp.status, resp.body)
		}
		if got := foDoors[0].text(t, true, resp.body); got != good {
			t.Errorf("answer %q, want the second hop's %q", got, good)
		}
		if strings.Contains(resp.body, "warm") {
			t.Errorf("the client saw the non-conforming answer:\n%s", resp.body)
		}
		trail := attemptsOf(resp.header.Get("X-Axon-Trail"))
		if !strings.HasPrefix(trail, "bad#1 fallback permanent/non_conforming_output ") || resp.header.Get("X-Axon-Provider") != "claude" {
			t.Errorf("provider %q trail %q: want claude after bad#1 fallback permanent/non_conforming_output", resp.header.Get("X-Axon-Provider"), trail)
		}
		if calls, bad := badUp.seen(); calls != before+1 || len(bad) != 0 {
			t.Errorf("bad upstream: %d calls (%q refused), want exactly one more, with the schema: a non-conforming answer is not retried", calls-before, bad)
		}
	})

	t.Run("the Anthropic front door's output_config is held to the same check", func(t *testing.T) {
		for _, stream := range []bool{false, true} {
			resp := r.post("/v1/messages", fmt.Sprintf(`{"model":"fallback","max_tokens":100,"stream":%v,
			  "messages":[{"role":"user","content":"Weather in Rome, as JSON."}],
			  "output_config":{"format":{"type":"json_schema","schema":%s}}}`, stream, weatherSchema))
			if resp.status != http.StatusOK {
				t.Fatalf("stream=%v: %d %s", stream, resp.status, resp.body)
			}
			if got := foDoors[1].text(t, stream, resp.body); got != good { // the Anthropic client's text
				t.Errorf("stream=%v: answer %q, want the second hop's %q", stream, got, good)
			}
			if trail := attemptsOf(resp.header.Get("X-Axon-Trail")); !strings.HasPrefix(trail, "bad#1 fallback permanent/non_conforming_output ") {
				t.Errorf("stream=%v: trail %q, want bad#1 fallback permanent/non_conforming_output first", stream, trail)
			}
		}
	})

	t.Run("a hop whose plugin does not declare Output is skipped", func(t *testing.T) {
		in, err := r.broker.sup.Instance("cli")
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a hang guard
		defer cancel()
		if info, err := in.Info(ctx); err != nil || info.Output {
			t.Fatalf("cli plugin Info: Output %v, err %v; want a running plugin that does not declare Output", info.Output, err)
		}
		resp := r.post("/v1/chat/completions", schemaChat("skip", false, weatherSchema))
		if resp.status != http.StatusOK || chatText(t, resp.body) != good {
			t.Fatalf("%d %s", resp.status, resp.body)
		}
		if trail := attemptsOf(resp.header.Get("X-Axon-Trail")); !strings.HasPrefix(trail, "cli skipped(no_structured_output), claude#1 ok ") {
			t.Errorf("trail %q, want cli skipped(no_structured_output), claude#1 ok", trail)
		}
		// Without a strict schema the same chain asks the cli hop.
		resp = r.post("/v1/chat/completions", `{"model":"skip","messages":[{"role":"user","content":"echo hi"}]}`)
		if trail := attemptsOf(resp.header.Get("X-Axon-Trail")); !strings.HasPrefix(trail, "cli#1 ") {
			t.Errorf("free text: trail %q, want the cli hop tried first", trail)
		}
	})

	t.Run("no hop can guarantee the schema: an invalid request that says so, no upstream called", func(t *testing.T) {
		resp := r.post("/v1/chat/completions", schemaChat("nobody", false, weatherSchema))
		if resp.status != http.StatusBadRequest || !strings.Contains(resp.body, "no provider of the chain can guarantee the response schema") {
			t.Errorf("%d %s: want 400 saying no provider can guarantee the schema", resp.status, resp.body)
		}
		if trail := attemptsOf(resp.header.Get("X-Axon-Trail")); trail != "cli skipped(no_structured_output), none skipped(no_structured_output)" { // routing puts the api tier last
			t.Errorf("trail %q", trail)
		}
		if calls, _ := noneUp.seen(); calls != 0 {
			t.Errorf("the upstream of a block with structured_output = false was called %d times", calls)
		}
	})

	t.Run("a schema that does not compile is the client's 400, before any upstream", func(t *testing.T) {
		before, _ := claudeUp.seen()
		resp := r.post("/v1/chat/completions", schemaChat("strict", false, `{"type":"object","required":"city"}`))
		if resp.status != http.StatusBadRequest || !strings.Contains(resp.body, "the response schema does not compile") {
			t.Errorf("%d %s: want 400, the schema does not compile", resp.status, resp.body)
		}
		if calls, _ := claudeUp.seen(); calls != before {
			t.Errorf("the upstream was called %d times for an invalid schema", calls-before)
		}
	})
}
