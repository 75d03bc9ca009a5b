package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/axonhq/axon/host/usage"
)

// openaiUsageUpstream streams "priced answer" and reports in and out
// tokens, as OpenAI does with stream_options.include_usage.
func openaiUsageUpstream(t *testing.T, model string, in, out int) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "data: {\"id\":\"c\",\"model\":%q,\"choices\":[{\"index\":0,\"delta\":{\"content\":\"priced answer\"}}]}\n\n", model)
		fmt.Fprintf(w, "data: {\"id\":\"c\",\"model\":%q,\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n", model)
		fmt.Fprintf(w, "data: {\"id\":\"c\",\"model\":%q,\"choices\":[],\"usage\":{\"prompt_tokens\":%d,\"completion_tokens\":%d}}\n\ndata: [DONE]\n\n", model, in, out)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// statsConfig: "default" is a metered provider the price table knows
// (the openai preset's gpt-4o-mini, on a local upstream), "local" a local
// tier whose upstream reports no usage, "down" an upstream that fails.
func statsConfig(t *testing.T, priced, local, down string) string {
	key := filepath.Join(t.TempDir(), "openai.key")
	if err := os.WriteFile(key, []byte("sk-test"), 0o600); err != nil {
		t.Fatal(err)
	}
	return writeConfigAxon(t, "billing { enabled = true }", `
provider "metered" {
  preset     = "openai"
  base_url   = "`+priced+`/v1"
  model      = "gpt-4o-mini"
  credential = file("`+key+`")
  enabled    = true # tier "api": behind the paid gate, which the axon block opens
}
provider "local" {
  plugin   = "openai"
  base_url = "`+local+`/v1"
  model    = "qwen2.5:3b"
  tier     = "local"
}
provider "down" {
  plugin   = "openai"
  base_url = "`+down+`/v1"
  model    = "m"
}
chain "default" { providers = [provider.metered] }
chain "local"   { providers = [provider.local] }
chain "down" {
  providers = [provider.down]
  retry { attempts = 1 }
}
`)
}

// axon ask records a fact for every turn, answered or not, and axon stats
// rolls them up: as a table, and as the JSON GET /v1/stats answers.
func TestStats(t *testing.T) {
	priced := openaiUsageUpstream(t, "gpt-4o-mini-2024-07-18", 100_000, 20_000)
	local := openaiUpstream(t, 200, "hello from the mock")
	down := openaiUpstream(t, 503, `{"error":{"message":"down","type":"server_error"}}`)
	cfg := statsConfig(t, priced.URL, local.URL, down.URL)

	code, out, errOut := run(t, nil, "stats", "--config", cfg)
	if code != 0 || !strings.Contains(out, "by provider: 0 requests") {
		t.Fatalf("stats before any turn: exit %d\n%s\n%s", code, out, errOut)
	}
	for _, c := range []struct {
		chain string
		code  int
	}{{"default", 0}, {"default", 0}, {"local", 0}, {"down", 1}} {
		if code, out, errOut := run(t, nil, "ask", "--config", cfg, "--chain", c.chain, "hi"); code != c.code {
			t.Fatalf("ask --chain %s: exit %d, want %d\n%s\n%s", c.chain, code, c.code, out, errOut)
		}
	}

	code, out, errOut = run(t, nil, "stats", "--config", cfg, "--since", "1h")
	if code != 0 {
		t.Fatalf("stats: exit %d\n%s\n%s", code, out, errOut)
	}
	// 2 × gpt-4o-mini at $0.15 / $0.60 per million: $0.054; at the default
	// reference (Claude Opus 4.5, $5 / $25) the same tokens cost $2.00.
	for _, want := range [][]string{
		{"PROVIDER", "REQUESTS", "ERRORS", "INPUT", "OUTPUT", "CACHE", "READ", "CACHE", "WRITE", "SPEND", "AVOIDED", "P50", "FIRST", "TOKEN"},
		{"metered", "2", "0.0%", "200000", "40000", "-", "-", "$0.0540", "$1.9460"},
		{"local", "1", "0.0%", "-", "-", "-", "-", "-", "-"},
		{"-", "1", "100.0%", "-", "-", "-", "-", "-", "-", "-"},
		{"total", "4", "25.0%", "200000", "40000", "-", "-", "$0.0540", "$1.9460"},
	} {
		if !hasRow(out, want) {
			t.Errorf("stats lacks a row starting %q:\n%s", strings.Join(want, " "), out)
		}
	}
	if !strings.Contains(out, "1 of the answered requests reported no token counts") {
		t.Errorf("stats does not say a provider reported no usage:\n%s", out)
	}

	code, out, errOut = run(t, nil, "stats", "--config", cfg, "--since", "1h", "--by", "source", "--json")
	if code != 0 {
		t.Fatalf("stats --json: exit %d\n%s\n%s", code, out, errOut)
	}
	var rep usage.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("stats --json: %v\n%s", err, out)
	}
	if rep.By != usage.BySource || len(rep.Rows) != 1 || rep.Rows[0].Key != "ask" || rep.Rows[0].Requests != 4 ||
		rep.Total.InputTokens == nil || *rep.Total.InputTokens != 200_000 || rep.Total.CacheReadTokens != nil || rep.Total.Unreported != 1 {
		t.Errorf("stats --json:\n%s", out)
	}
	if !strings.Contains(out, `"p50_first_token_ms"`) || strings.Contains(out, `"cache_read_tokens"`) {
		t.Errorf("stats --json: a streamed ask has a first-token time, and no provider reported cache reads:\n%s", out)
	}

	if code, _, errOut := run(t, nil, "stats", "--config", cfg, "--by", "model"); code != 1 || !strings.Contains(errOut, "cannot group by") {
		t.Errorf("stats --by model: exit %d\n%s", code, errOut)
	}
}

// hasRow reports a line of out whose first fields are want.
func hasRow(out string, want []string) bool {
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) >= len(want) && strings.Join(f[:len(want)], " ") == strings.Join(want, " ") {
			return true
		}
	}
	return false
}
