package daemon

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/axonhq/axon/hcl/config"
	"github.com/axonhq/axon/host/usage"
	"github.com/axonhq/axon/sdk"
)

// openaiNoUsage streams words as an OpenAI chat completion that reports no
// usage at all, as some OpenAI-compatible servers do.
func openaiNoUsage(model string, words ...string) step {
	return func(w http.ResponseWriter, _ *http.Request) {
		var ev []string
		for _, word := range words {
			ev = append(ev, fmt.Sprintf(`data: {"id":"c1","model":%q,"choices":[{"index":0,"delta":{"content":%q}}]}`+"\n\n", model, word))
		}
		ev = append(ev, fmt.Sprintf(`data: {"id":"c1","model":%q,"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`+"\n\n", model), "data: [DONE]\n\n")
		sse(w, ev...)
	}
}

// usageHCL is one chain per kind of price, each provider a real plugin
// process with an upstream of its own.
func usageHCL(t *testing.T, local, claude, mine, bare, down *upstream) string {
	key := filepath.Join(t.TempDir(), "anthropic.key")
	if err := os.WriteFile(key, []byte("sk-ant-test"), 0o600); err != nil {
		t.Fatal(err)
	}
	return `
provider "local" {
  plugin   = "openai"
  base_url = "` + local.URL + `/v1"
  model    = "qwen2.5:3b"
  tier     = "local"
}
provider "claude" {
  preset     = "anthropic"
  base_url   = "` + claude.URL + `"
  model      = "claude-sonnet-4-5"
  credential = file("` + key + `")
  tier       = "api"
  enabled    = true # behind the paid gate, which the rig's axon block opens
}
provider "mine" {
  plugin   = "openai"
  base_url = "` + mine.URL + `/v1"
  model    = "gpt-x"
  pricing {
    input_per_mtok  = 1
    output_per_mtok = 4
  }
}
provider "bare" {
  plugin   = "openai"
  base_url = "` + bare.URL + `/v1"
  model    = "m"
}
provider "down" {
  plugin   = "openai"
  base_url = "` + down.URL + `/v1"
  model    = "m"
}
chain "default" { providers = [provider.local] }
chain "paid"    { providers = [provider.claude] }
chain "priced"  { providers = [provider.mine] }
chain "bare"    { providers = [provider.bare] }
chain "down" {
  providers = [provider.down]
  retry { attempts = 1 }
}
`
}

// Every turn through the front door (both wire formats) and a durable
// session's model step becomes one fact: the counts the provider reported
// and no others, the price from the table, from pricing {} or the tier,
// the cost avoided at the default reference. /v1/stats rolls them up
// behind the token, and /metrics counts tokens and cost by provider.
func TestUsageFacts(t *testing.T) {
	local := newUpstream(t, openaiText("qwen2.5:3b", "hello", "there"))
	claude := newUpstream(t, anthropicText("claude-sonnet-4-5-20250929", "from claude"))
	mine := newUpstream(t, openaiText("gpt-x-1", "priced", "answer", "here"))
	bare := newUpstream(t, openaiNoUsage("m", "no", "usage"))
	down := newUpstream(t, status(500, nil, `{"error":{"message":"boom","type":"server_error"}}`))
	r := newRigAxon(t, "billing { enabled = true }", usageHCL(t, local, claude, mine, bare, down), frontDoorToken, Options{})

	for _, c := range []struct {
		path, body string
		want       int
	}{
		{"/v1/chat/completions", chatBody("default", false), 200},
		{"/v1/messages", `{"model":"paid","max_tokens":50,"stream":true,"messages":[{"role":"user","content":"hi"}]}`, 200},
		{"/v1/chat/completions", chatBody("priced", true), 200},
		{"/v1/chat/completions", chatBody("bare", false), 200},
		{"/v1/chat/completions", chatBody("down", false), 503},
	} {
		if status, _, body := r.do("POST", c.path, c.body, true); status != c.want {
			t.Fatalf("%s %s: %d %s, want %d", c.path, c.body, status, body, c.want)
		}
	}
	status, _, body := r.do("POST", "/v1/sessions", `{"session":"s","prompt":"hi"}`, true)
	if status != http.StatusCreated {
		t.Fatalf("session: %d %s", status, body)
	}
	var adm struct {
		SessionID string `json:"session_id"`
		RunID     string `json:"run_id"`
	}
	if err := json.Unmarshal([]byte(body), &adm); err != nil {
		t.Fatal(err)
	}
	// The events stream ends once the run does: its model step is over.
	if status, _, body := r.do("GET", "/v1/sessions/"+adm.SessionID+"/events?display=false&run="+adm.RunID, "", true); status != 200 || !strings.Contains(body, "event: end") {
		t.Fatalf("session events: %d %s", status, body)
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
	n := sdk.Tokens
	f := func(x float64) *float64 { return &x }
	ref := usage.DefaultReference
	// What the default reference (Claude Opus 4.5: $5 in, $25 out) charges.
	opus := func(in, out float64) float64 { return (in*5 + out*25) / 1e6 }
	want := []usage.Fact{
		{Source: usage.SourceOpenAI, Chain: "default", Provider: "local", Tier: config.TierLocal, Model: "qwen2.5:3b", Outcome: usage.OutcomeOK, Attempts: 1,
			Tokens: sdk.Usage{InputTokens: n(7), OutputTokens: n(2)}, CostUSD: f(0), Basis: usage.BasisTier, AvoidedUSD: f(opus(7, 2)), Reference: ref},
		{Source: usage.SourceAnthropic, Chain: "paid", Provider: "claude", Tier: config.TierAPI, Model: "claude-sonnet-4-5-20250929", Outcome: usage.OutcomeOK, Attempts: 1,
			Tokens: sdk.Usage{InputTokens: n(9), OutputTokens: n(3)}, CostUSD: f((9*3 + 3*15) / 1e6), Basis: usage.BasisTable,
			AvoidedUSD: f(opus(9, 3) - (9*3+3*15)/1e6), Reference: ref},
		{Source: usage.SourceOpenAI, Chain: "priced", Provider: "mine", Model: "gpt-x-1", Outcome: usage.OutcomeOK, Attempts: 1,
			Tokens: sdk.Usage{InputTokens: n(7), OutputTokens: n(3)}, CostUSD: f((7*1 + 3*4) / 1e6), Basis: usage.BasisPricing,
			AvoidedUSD: f(opus(7, 3) - (7*1+3*4)/1e6), Reference: ref},
		{Source: usage.SourceOpenAI, Chain: "bare", Provider: "bare", Model: "m", Outcome: usage.OutcomeOK, Attempts: 1, Reference: ref},
		{Source: usage.SourceOpenAI, Chain: "down", Outcome: usage.OutcomeExhausted, Class: sdk.ClassTransient, Attempts: 1},
		{Source: usage.SourceSession, Chain: "default", Provider: "local", Tier: config.TierLocal, Model: "qwen2.5:3b", Outcome: usage.OutcomeOK, Attempts: 1,
			Tokens: sdk.Usage{InputTokens: n(7), OutputTokens: n(2)}, CostUSD: f(0), Basis: usage.BasisTier, AvoidedUSD: f(opus(7, 2)), Reference: ref},
	}
	approx := cmp.Comparer(func(a, b float64) bool { return a-b < 1e-12 && b-a < 1e-12 })
	if d := cmp.Diff(want, facts, approx, cmpopts.IgnoreFields(usage.Fact{}, "At", "FirstToken", "Total")); d != "" {
		t.Errorf("facts (-want +got):\n%s", d)
	}
	for _, fact := range facts {
		streamed := fact.Source == usage.SourceAnthropic || fact.Chain == "priced" || fact.Source == usage.SourceSession
		if fact.Total <= 0 || (streamed && (fact.FirstToken <= 0 || fact.FirstToken > fact.Total)) || (!streamed && fact.FirstToken != 0) {
			t.Errorf("%s %s: first token %v of %v: a stream has one within the turn, a whole answer none", fact.Source, fact.Chain, fact.FirstToken, fact.Total)
		}
	}

	// GET /v1/stats, behind the token, through a real HTTP client.
	if status, _, body := r.do("GET", "/v1/stats", "", false); status != http.StatusUnauthorized {
		t.Errorf("/v1/stats without the token: %d %s", status, body)
	}
	status, header, body := r.do("GET", "/v1/stats?since=1h&by=tier", "", true)
	if status != 200 || header.Get("Content-Type") != "application/json" {
		t.Fatalf("/v1/stats: %d %s %s", status, header.Get("Content-Type"), body)
	}
	var rep usage.Report
	if err := json.Unmarshal([]byte(body), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.By != usage.ByTier || rep.Total.Requests != 6 || rep.Total.Errors != 1 || rep.Total.Unreported != 1 || *rep.Total.InputTokens != 30 {
		t.Errorf("/v1/stats total: %+v", rep.Total)
	}
	keys := map[string]usage.Row{}
	for _, row := range rep.Rows {
		keys[row.Key] = row
	}
	if l := keys["local"]; l.Requests != 2 || l.SpendUSD == nil || *l.SpendUSD != 0 || l.AvoidedUSD == nil || *l.AvoidedUSD <= 0 {
		t.Errorf("/v1/stats, the local tier: %+v, want 2 requests that cost nothing and avoided some", l)
	}
	if none := keys["-"]; none.Requests != 3 || none.Errors != 1 {
		t.Errorf("/v1/stats, no tier: %+v, want 3 requests, 1 error", none)
	}
	if status, _, body := r.do("GET", "/v1/stats?by=model", "", true); status != http.StatusBadRequest || !strings.Contains(body, "cannot group by") {
		t.Errorf("/v1/stats?by=model: %d %s", status, body)
	}

	_, _, metrics := r.do("GET", "/metrics", "", true)
	for _, line := range []string{
		`axon_tokens_total{kind="input",provider="local"} 14`,
		`axon_tokens_total{kind="output",provider="claude"} 3`,
		`axon_cost_usd_total{provider="local"} 0`,
		`axon_cost_usd_total{provider="mine"} 1.9e-05`,
		`axon_usage_facts_dropped_total 0`,
	} {
		if !strings.Contains(metrics, line+"\n") {
			t.Errorf("/metrics lacks %s", line)
		}
	}
	if strings.Contains(metrics, `provider="bare"`) && strings.Contains(metrics, `axon_tokens_total{kind="input",provider="bare"}`) {
		t.Errorf("/metrics counts tokens bare never reported")
	}
}
