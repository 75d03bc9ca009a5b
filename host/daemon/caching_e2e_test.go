package daemon

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/axonhq/axon/host/usage"
	"github.com/axonhq/axon/sdk"
)

// cachingUpstream is a fake Anthropic Messages API that records the
// cache_control of every block it receives and answers with usage that
// reports cache reads and writes.
type cachingUpstream struct {
	*httptest.Server
	mu     sync.Mutex
	bodies []cachedRequest
}

// cachedRequest is the part of a Messages request prompt caching is about:
// each block's breakpoint, in order ("" when it has none, else
// "ephemeral" or "ephemeral/TTL").
type cachedRequest struct {
	System   []string
	Tools    []string
	Messages [][]string
}

type wireCC struct {
	Type string `json:"type"`
	TTL  string `json:"ttl"`
}

func (c *wireCC) String() string {
	switch {
	case c == nil:
		return ""
	case c.TTL != "":
		return c.Type + "/" + c.TTL
	}
	return c.Type
}

type wireCached struct {
	CacheControl *wireCC `json:"cache_control"`
}

func newCachingUpstream(t *testing.T) *cachingUpstream {
	t.Helper()
	u := &cachingUpstream{}
	u.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body struct {
			System   json.RawMessage `json:"system"`
			Tools    []wireCached    `json:"tools"`
			Messages []struct {
				Content []wireCached `json:"content"`
			} `json:"messages"`
		}
		if err := json.Unmarshal(raw, &body); err != nil {
			http.Error(w, `{"type":"error","error":{"type":"invalid_request_error","message":"not JSON"}}`, http.StatusBadRequest)
			return
		}
		var got cachedRequest
		var system []wireCached
		if len(body.System) > 0 && body.System[0] == '[' {
			_ = json.Unmarshal(body.System, &system)
		} else if len(body.System) > 0 {
			system = []wireCached{{}} // one plain string: one block, no breakpoint
		}
		for _, b := range system {
			got.System = append(got.System, b.CacheControl.String())
		}
		for _, b := range body.Tools {
			got.Tools = append(got.Tools, b.CacheControl.String())
		}
		for _, m := range body.Messages {
			var bs []string
			for _, b := range m.Content {
				bs = append(bs, b.CacheControl.String())
			}
			got.Messages = append(got.Messages, bs)
		}
		u.mu.Lock()
		u.bodies = append(u.bodies, got)
		u.mu.Unlock()
		sse(w,
			"event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5-20250929\",\"content\":[],\"usage\":{\"input_tokens\":10,\"cache_creation_input_tokens\":2000,\"cache_read_input_tokens\":1500,\"output_tokens\":1}}}\n\n",
			"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n",
			"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Sunny.\"}}\n\n",
			"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n",
			"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":5}}\n\n",
			"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")
	}))
	t.Cleanup(u.Close)
	return u
}

func (u *cachingUpstream) received() []cachedRequest {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]cachedRequest(nil), u.bodies...)
}

// A client's prompt-cache breakpoints reach a real anthropic plugin
// process's upstream exactly where the client put them (system blocks, a
// message block, a tool; with their ttl), the cache reads and writes the
// upstream reports reach the client in its own format, and the usage facts
// price them at the table's cache prices.
func TestPromptCachingEndToEnd(t *testing.T) {
	up := newCachingUpstream(t)
	key := filepath.Join(t.TempDir(), "anthropic.key")
	if err := os.WriteFile(key, []byte("sk-ant-test"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := newRigAxon(t, "billing { enabled = true }", `
provider "claude" {
  preset     = "anthropic"
  base_url   = "`+up.URL+`"
  model      = "claude-sonnet-4-5"
  credential = file("`+key+`")
  tier       = "api"
  enabled    = true
}
chain "default" { providers = [provider.claude] }
`, frontDoorToken, Options{})

	// The Anthropic front door: breakpoints on the first system block (1h),
	// the tool and the first block of the user's message.
	status, _, body := r.do("POST", "/v1/messages", `{"model":"default","max_tokens":50,
	  "system":[{"type":"text","text":"You are a meteorologist with a long manual.","cache_control":{"type":"ephemeral","ttl":"1h"}},
	            {"type":"text","text":"Be brief."}],
	  "tools":[{"name":"weather","input_schema":{"type":"object"},"cache_control":{"type":"ephemeral"}}],
	  "messages":[{"role":"user","content":[{"type":"text","text":"A long forecast report.","cache_control":{"type":"ephemeral","ttl":"5m"}},{"type":"text","text":"Rome tomorrow?"}]}]}`, true)
	if status != http.StatusOK {
		t.Fatalf("/v1/messages: %d %s", status, body)
	}
	var msg struct {
		Usage map[string]int64 `json:"usage"`
	}
	if err := json.Unmarshal([]byte(body), &msg); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(map[string]int64{"input_tokens": 10, "output_tokens": 5, "cache_read_input_tokens": 1500, "cache_creation_input_tokens": 2000}, msg.Usage); d != "" {
		t.Errorf("anthropic client usage (-want +got):\n%s", d)
	}

	// The OpenAI front door: no breakpoints to send; the reads are the
	// client's cached_tokens, within prompt_tokens.
	status, _, body = r.do("POST", "/v1/chat/completions", `{"model":"default","messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"Rome tomorrow?"}]}`, true)
	if status != http.StatusOK {
		t.Fatalf("/v1/chat/completions: %d %s", status, body)
	}
	var chat struct {
		Usage struct {
			PromptTokens        int64 `json:"prompt_tokens"`
			CompletionTokens    int64 `json:"completion_tokens"`
			PromptTokensDetails *struct {
				CachedTokens int64 `json:"cached_tokens"`
			} `json:"prompt_tokens_details"`
		} `json:"usage"`
	}
	if err := json.Unmarshal([]byte(body), &chat); err != nil {
		t.Fatal(err)
	}
	if u := chat.Usage; u.PromptTokens != 10+1500+2000 || u.CompletionTokens != 5 || u.PromptTokensDetails == nil || u.PromptTokensDetails.CachedTokens != 1500 {
		t.Errorf("openai client usage %+v (details %+v), want prompt 3510 with 1500 cached, completion 5", u, u.PromptTokensDetails)
	}

	want := []cachedRequest{
		{System: []string{"ephemeral/1h", ""}, Tools: []string{"ephemeral"}, Messages: [][]string{{"ephemeral/5m", ""}}},
		{System: []string{""}, Messages: [][]string{{""}}},
	}
	if d := cmp.Diff(want, up.received()); d != "" {
		t.Errorf("breakpoints the upstream received (-want +got):\n%s", d)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := r.broker.usage.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	facts, err := r.front.store.Facts(ctx, usage.Query{Since: time.Now().Add(-time.Hour), Until: time.Now().Add(time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	if len(facts) != 2 {
		t.Fatalf("%d usage facts, want 2: %+v", len(facts), facts)
	}
	n := sdk.Tokens
	// claude-sonnet-4-5 in the table: $3 input, $15 output, $0.30 cache
	// reads, $3.75 cache writes per million tokens.
	wantCost := (10*3 + 5*15 + 1500*0.30 + 2000*3.75) / 1e6
	for _, f := range facts {
		if d := cmp.Diff(sdk.Usage{InputTokens: n(10), OutputTokens: n(5), CacheReadTokens: n(1500), CacheWriteTokens: n(2000)}, f.Tokens); d != "" {
			t.Errorf("%s fact tokens (-want +got):\n%s", f.Source, d)
		}
		if f.Basis != usage.BasisTable || f.CostUSD == nil || *f.CostUSD-wantCost > 1e-12 || wantCost-*f.CostUSD > 1e-12 {
			t.Errorf("%s fact cost %v (basis %q), want %v from the table", f.Source, f.CostUSD, f.Basis, wantCost)
		}
	}
}
