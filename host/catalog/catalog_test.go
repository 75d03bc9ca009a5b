package catalog

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/axonhq/axon/hcl/config"
	"github.com/axonhq/axon/host/usage"
	"github.com/axonhq/axon/sdk"
)

// parseConfig loads configuration text as axon would load a file.
func parseConfig(t testing.TB, src string) *config.Config {
	t.Helper()
	l := config.NewLoader(config.Options{LookupEnv: func(string) (string, bool) { return "", false }, HomeDir: "/home/pi", GOOS: "linux"})
	cfg, diags := l.Parse("/etc/axon/axon.hcl", []byte(src))
	if diags.HasErrors() {
		t.Fatalf("config: %s", diags.Error())
	}
	return cfg
}

func newCatalog(t testing.TB, src string, store *Store) *Catalog {
	t.Helper()
	cfg := parseConfig(t, src)
	prices, err := usage.NewPrices(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return New(cfg, prices, store)
}

const mergeConfig = `
provider "claude" {
  preset = "anthropic"
  model  = "claude-sonnet-4-5-20250929"
}
provider "tuned" {
  preset         = "anthropic"
  model          = "claude-haiku-4-5"
  context_window = 150000
  prefill        = false
  pricing {
    input_per_mtok = 2
  }
}
provider "local" {
  preset = "ollama"
  model  = "qwen3:8b"
}
provider "own" {
  plugin   = "openai"
  base_url = "http://127.0.0.1:8000/v1"
}
chain "default" { providers = [provider.claude, provider.tuned, provider.local, provider.own] }
`

func f(x float64) *float64 { return &x }
func b(v bool) *bool       { return &v }

// TestMergePrecedence: each fact is the block's own, else its plugin's
// last answer, else the built-in tables', and says which.
func TestMergePrecedence(t *testing.T) {
	t.Parallel()
	c := newCatalog(t, mergeConfig, nil)
	at := time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)
	// Every plugin answers with a window and a largest answer; only the
	// ones the block does not set are taken.
	for name, model := range map[string]string{"claude": "claude-sonnet-4-5-20250929", "tuned": "claude-haiku-4-5", "local": "qwen3:8b"} {
		if err := c.Learn(name, []sdk.Model{{ID: model, ContextWindow: 32768, MaxOutputTokens: 4096}}, b(true), at); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Learn("own", []sdk.Model{{ID: "served-default"}}, nil, at); err != nil {
		t.Fatal(err)
	}
	cfgSrc, plugin, table := SourceConfig, SourcePlugin, SourceTable
	want := []Entry{
		{
			Provider: "claude", Model: "claude-sonnet-4-5-20250929", ContextWindow: 32768, MaxOutputTokens: 4096,
			Price: Price{f(3), f(15), f(0.30), f(3.75)},
			Tools: b(true), Prefill: b(true),
			Sources: map[string]Source{"model": cfgSrc, "context_window": plugin, "max_output_tokens": plugin, "price": table, "tools": table, "prefill": plugin},
		},
		{
			Provider: "tuned", Model: "claude-haiku-4-5", ContextWindow: 150000, MaxOutputTokens: 4096,
			Price: Price{f(2), f(5), f(0.10), f(1.25)}, // pricing {} over the table row
			Tools: b(true), Prefill: b(false),
			Sources: map[string]Source{"model": cfgSrc, "context_window": cfgSrc, "max_output_tokens": plugin, "price": cfgSrc, "tools": table, "prefill": cfgSrc},
		},
		{
			Provider: "local", Model: "qwen3:8b", ContextWindow: 32768, MaxOutputTokens: 4096,
			Price:   Price{f(0), f(0), f(0), f(0)}, // tier local
			Prefill: b(true),
			Sources: map[string]Source{"model": cfgSrc, "context_window": plugin, "max_output_tokens": plugin, "price": cfgSrc, "prefill": plugin},
		},
		{
			// No model in the block: the plugin's only one.
			Provider: "own", Model: "served-default",
			Sources: map[string]Source{"model": plugin},
		},
	}
	if diff := cmp.Diff(want, c.Entries()); diff != "" {
		t.Errorf("entries (-want +got):\n%s", diff)
	}
}

// TestTablesAlone: without any plugin answer, the limit and price tables
// fill what the block does not say; a block of a model no table knows has
// only its model.
func TestTablesAlone(t *testing.T) {
	t.Parallel()
	c := newCatalog(t, mergeConfig, nil)
	got, ok := c.Entry("claude")
	if !ok {
		t.Fatal("no entry for claude")
	}
	if got.ContextWindow != 200_000 || got.MaxOutputTokens != 64_000 || got.Sources["context_window"] != SourceTable || got.Prefill != nil {
		t.Errorf("claude from the tables: %+v", got)
	}
	own, _ := c.Entry("own")
	if diff := cmp.Diff(Entry{Provider: "own"}, own); diff != "" {
		t.Errorf("a block of no known model (-want +got):\n%s", diff)
	}
	if _, ok := c.Entry("nobody"); ok {
		t.Error("an entry for a provider block that does not exist")
	}
}

// TestUnservable: a plugin whose answer lists models without the block's
// makes the entry unservable, saying why; an answer from the block as it
// was configured before (another model) is not used at all.
func TestUnservable(t *testing.T) {
	t.Parallel()
	store, _ := OpenStore("")
	c := newCatalog(t, mergeConfig, store)
	if err := c.Learn("claude", []sdk.Model{{ID: "claude-opus-4-5"}, {ID: "claude-haiku-4-5"}}, nil, time.Now()); err != nil {
		t.Fatal(err)
	}
	e, _ := c.Entry("claude")
	if want := `its plugin (anthropic) no longer lists model "claude-sonnet-4-5-20250929"; it lists "claude-opus-4-5", "claude-haiku-4-5"`; e.Unservable != want {
		t.Errorf("unservable %q, want %q", e.Unservable, want)
	}
	edited := newCatalog(t, `provider "claude" {
  preset = "anthropic"
  model  = "claude-opus-4-5"
  context_window = 1000
}
chain "default" { providers = [provider.claude] }`, store)
	if e, _ := edited.Entry("claude"); e.Unservable != "" || e.Sources["max_output_tokens"] != SourceTable {
		t.Errorf("the answer of the block before its edit was used: %+v", e)
	}
}

func TestFindLimit(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		model string
		want  string // the row's model, "" for none
	}{
		{"claude-sonnet-4-5", "claude-sonnet-4-5"},
		{"claude-sonnet-4.5", "claude-sonnet-4-5"},
		{"claude-sonnet-4-5-20250929", "claude-sonnet-4-5"},
		{"anthropic/claude-sonnet-4.5", "claude-sonnet-4-5"},
		{"models/gemini-2.5-flash", "gemini-2.5-flash"},
		{"gemini-2.5-flash-lite", "gemini-2.5-flash-lite"},
		{"gpt-5-mini", "gpt-5-mini"},
		{"gpt-5-pro", ""},
		{"GPT-4o-2024-08-06", "gpt-4o"},
		{"qwen3:8b", ""},
		{"", ""},
	} {
		got, ok := findLimit(c.model)
		if (c.want == "") == ok || (ok && got.model != c.want) {
			t.Errorf("findLimit(%q) = %q, %v; want %q", c.model, got.model, ok, c.want)
		}
	}
}
