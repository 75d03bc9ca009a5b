package edit

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/axonhq/axon/hcl/config"
	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

var update = flag.Bool("update", false, "rewrite testdata/golden from the current output")

var opts = config.Options{HomeDir: "/home/owner", ExecutableDir: "/opt/axon"}

func ed(block, name, field, value string) Edit {
	return Edit{Block: block, Name: name, Field: field, Value: json.RawMessage(value)}
}

func read(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestApplyGolden applies each case to a commented file and compares the
// result with testdata/golden/<case>.hcl. Besides the golden text it
// checks what a user would notice: the lines the case does not mean to
// change are all still there, byte for byte, every comment not removed
// with its item survives, and the loader accepts the file.
func TestApplyGolden(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		file  string
		edits []Edit
		// lost are the lines of the file, trimmed, that the edits replace
		// or remove; every other line must be in the output unchanged.
		lost []string
	}{
		{
			name:  "tier_replace",
			edits: []Edit{ed("provider", "glm", "tier", `"api"`)},
			lost:  []string{`tier    = "sub"               # flat rate`},
		},
		{
			name:  "enabled_replace_keeps_comments",
			edits: []Edit{ed("provider", "claude", "enabled", `false`)},
			lost:  []string{`enabled    = true # keep this one`},
		},
		{
			name:  "enabled_remove_takes_its_comments",
			edits: []Edit{ed("provider", "claude", "enabled", `null`)},
			lost:  []string{`# Behind the paid gate: the last resort of every chain.`, `enabled    = true # keep this one`},
		},
		{
			name:  "tier_add_after_last_attribute",
			edits: []Edit{ed("provider", "local", "tier", `"local"`)},
		},
		{
			name:  "good_at_replace",
			edits: []Edit{ed("provider", "glm", "good_at", `["chat", "long context", "quote \" and ${x}"]`)},
			lost:  []string{`good_at = ["chat", "code"]`},
		},
		{
			name:  "good_at_add_empty",
			edits: []Edit{ed("provider", "local", "good_at", `[]`)},
		},
		{
			name:  "budget_replace_one_line",
			edits: []Edit{ed("provider", "claude", "budget", `50.5`)},
			lost:  []string{`budget { usd_per_month = 20 } # skipped for the rest of the month once reached`},
		},
		{
			name:  "budget_add",
			edits: []Edit{ed("provider", "local", "budget", `5`)},
		},
		{
			name:  "budget_remove",
			edits: []Edit{ed("provider", "claude", "budget", `null`)},
			lost:  []string{`budget { usd_per_month = 20 } # skipped for the rest of the month once reached`, ``},
		},
		{
			name:  "pricing_replace_keeps_comment",
			edits: []Edit{ed("provider", "glm", "pricing.output", `2.5`)},
			lost:  []string{`output_per_mtok     = 2.2 # as of June`},
		},
		{
			name:  "pricing_add_attribute",
			edits: []Edit{ed("provider", "claude", "pricing.cache_write", `3.75`), ed("provider", "claude", "pricing.cache_read", `0.3`)},
		},
		{
			name:  "pricing_add_block",
			edits: []Edit{ed("provider", "local", "pricing.input", `0`), ed("provider", "local", "pricing.output", `0`)},
		},
		{
			name:  "pricing_remove_attribute",
			edits: []Edit{ed("provider", "glm", "pricing.output", `null`)},
			lost:  []string{`output_per_mtok     = 2.2 # as of June`},
		},
		{
			name:  "pricing_remove_emptied_block",
			edits: []Edit{ed("provider", "claude", "pricing.input", `null`), ed("provider", "claude", "pricing.output", `null`)},
			lost:  []string{``, `pricing {`, `input_per_mtok  = 3`, `output_per_mtok = 15`, `}`},
		},
		{
			name:  "providers_as_traversals",
			edits: []Edit{ed("chain", "default", "providers", `["local", "glm"]`)},
			lost:  []string{`providers = [provider.glm, provider.claude, provider.local]`},
		},
		{
			name:  "strategy_add_before_blocks",
			edits: []Edit{ed("chain", "default", "strategy", `"rotate"`)},
		},
		{
			name:  "strategy_replace_keeps_comment",
			edits: []Edit{ed("chain", "code", "strategy", `"lowest_cost"`)},
			lost:  []string{`strategy  = "ordered" # try them as listed`},
		},
		{
			name:  "classifier_replace",
			edits: []Edit{ed("chain", "code", "classifier", `{"provider": "local", "timeout": "5s"}`)},
			lost:  []string{`timeout  = "2s"`},
		},
		{
			name:  "classifier_drops_omitted_key",
			edits: []Edit{ed("chain", "code", "classifier", `{"provider": "local"}`)},
			lost:  []string{`timeout  = "2s"`},
		},
		{
			name:  "classifier_add",
			edits: []Edit{ed("chain", "private", "classifier", `{"provider": "local", "timeout": "1s"}`)},
		},
		{
			name:  "classifier_remove",
			edits: []Edit{ed("chain", "code", "classifier", `null`)},
			lost:  []string{``, `# Trivial questions go to the local model.`, `classifier {`, `provider = provider.local`, `timeout  = "2s"`, `}`},
		},
		{
			name:  "billing_replace",
			edits: []Edit{ed("billing", "", "enabled", `true`)},
			lost:  []string{`billing { enabled = false } # flipped on when the budget is set`},
		},
		{
			name:  "billing_remove_emptied_block",
			edits: []Edit{ed("billing", "", "enabled", `null`)},
			lost: []string{``, `# The paid gate: without it no request goes to a tier "api" provider.`,
				`billing { enabled = false } # flipped on when the budget is set`},
		},
		{
			name:  "billing_creates_axon_block",
			file:  "noaxon.hcl",
			edits: []Edit{ed("billing", "", "enabled", `true`)},
		},
		{
			name:  "billing_expands_one_line_axon",
			file:  "oneline.hcl",
			edits: []Edit{ed("billing", "", "enabled", `true`)},
			lost:  []string{`axon { listen = "127.0.0.1:7070" } # loopback only`},
		},
		{
			name: "one_line_provider_grows",
			file: "oneline.hcl",
			edits: []Edit{
				ed("provider", "local", "tier", `"local"`),
				ed("provider", "local", "budget", `1`),
				ed("provider", "local", "enabled", `true`),
			},
			lost: []string{`provider "local" { preset = "ollama" }`},
		},
		{
			name:  "one_line_pricing_grows",
			file:  "oneline.hcl",
			edits: []Edit{ed("provider", "gpu", "pricing.output", `2`)},
			lost:  []string{`pricing { input_per_mtok = 1 } # a guess`},
		},
		{
			name:  "attribute_before_first_block",
			file:  "oneline.hcl",
			edits: []Edit{ed("provider", "gpu", "tier", `"local"`)},
		},
		{
			name: "many_fields_at_once",
			edits: []Edit{
				ed("billing", "", "enabled", `true`),
				ed("provider", "local", "tier", `"local"`),
				ed("provider", "local", "good_at", `["chat"]`),
				ed("provider", "claude", "budget", `null`),
				ed("provider", "claude", "pricing.cache_read", `0.3`),
				ed("provider", "glm", "enabled", `false`),
				ed("chain", "default", "strategy", `"lowest_latency"`),
				ed("chain", "private", "providers", `["local", "glm"]`),
			},
			lost: []string{
				`billing { enabled = false } # flipped on when the budget is set`,
				`budget { usd_per_month = 20 } # skipped for the rest of the month once reached`, ``,
				`providers = [provider.local]`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			file := tt.file
			if file == "" {
				file = "axon.hcl"
			}
			src := read(t, file)
			res, err := Apply(file, src, tt.edits)
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "golden", tt.name+".hcl")
			if *update {
				if err := os.WriteFile(golden, res.Src, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), string(res.Src)); diff != "" {
				t.Errorf("output differs from %s (-want +got):\n%s", golden, diff)
			}
			if diff := cmp.Diff(tt.lost, lostLines(src, res.Src)); diff != "" {
				t.Errorf("lines of %s no longer in the output (-want +got):\n%s", file, diff)
			}
			if _, diags := config.NewLoader(opts).Parse(file, res.Src); diags.HasErrors() {
				t.Errorf("the loader refuses the output: %s", diags)
			}
			if len(res.Ranges) != len(tt.edits) {
				t.Fatalf("%d ranges for %d edits", len(res.Ranges), len(tt.edits))
			}
			for i, r := range res.Ranges {
				if r.Filename != file || r.Empty() {
					t.Errorf("edit %d: range %v, want a non-empty range in %s", i, r, file)
				}
			}
		})
	}
}

// lostLines lists, trimmed, the lines of old that a longest common
// subsequence with new leaves out: what an edit deleted or replaced.
func lostLines(old, new []byte) []string {
	a, b := strings.Split(string(old), "\n"), strings.Split(string(new), "\n")
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var lost []string
	i, j := 0, 0
	for i < len(a) {
		switch {
		case j < len(b) && a[i] == b[j]:
			i, j = i+1, j+1
		case j < len(b) && lcs[i][j+1] >= lcs[i+1][j]:
			j++
		default:
			lost = append(lost, strings.TrimSpace(a[i]))
			i++
		}
	}
	return lost
}

func TestApplyNoEditsIsIdentity(t *testing.T) {
	t.Parallel()
	for _, file := range []string{"axon.hcl", "oneline.hcl", "noaxon.hcl"} {
		src := read(t, file)
		res, err := Apply(file, src, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(res.Src, src) {
			t.Errorf("%s changed with no edit:\n%s", file, res.Src)
		}
	}
}

// TestApplyTakesEffect reads the edited file back with the loader: the
// values the panel set are the ones axon will use.
func TestApplyTakesEffect(t *testing.T) {
	t.Parallel()
	src := read(t, "axon.hcl")
	res, err := Apply("axon.hcl", src, []Edit{
		ed("billing", "", "enabled", `true`),
		ed("provider", "local", "tier", `"local"`),
		ed("provider", "local", "good_at", `["chat", "notes"]`),
		ed("provider", "local", "budget", `2.5`),
		ed("provider", "local", "pricing.input", `0.11`),
		ed("provider", "claude", "enabled", `false`),
		ed("provider", "claude", "pricing.cache_write", `3.75`),
		ed("provider", "claude", "pricing.input", `null`),
		ed("chain", "private", "providers", `["local", "glm"]`),
		ed("chain", "private", "strategy", `"rotate"`),
		ed("chain", "private", "classifier", `{"provider": "local", "timeout": "1500ms"}`),
	})
	if err != nil {
		t.Fatal(err)
	}
	cfg, diags := config.NewLoader(opts).Parse("axon.hcl", res.Src)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	type got struct {
		Billing     bool
		LocalTier   config.Tier
		LocalGoodAt []string
		LocalBudget float64
		LocalInput  float64
		ClaudeOn    bool
		ClaudeWrite float64
		ClaudeIn    *float64
		Providers   []string
		Strategy    config.Strategy
		Classifier  string
		Timeout     string
	}
	local, claude, private := cfg.Provider("local"), cfg.Provider("claude"), cfg.Chain("private")
	g := got{
		Billing: cfg.Axon.Billing.Enabled, LocalTier: local.Tier, LocalGoodAt: local.GoodAt,
		LocalBudget: local.Budget.USDPerMonth, LocalInput: *local.Pricing.InputPerMTok,
		ClaudeOn: *claude.Enabled, ClaudeWrite: *claude.Pricing.CacheWritePerMTok, ClaudeIn: claude.Pricing.InputPerMTok,
		Providers: private.Providers, Strategy: private.Strategy,
		Classifier: private.Classifier.Provider, Timeout: private.Classifier.Timeout.String(),
	}
	want := got{
		Billing: true, LocalTier: config.TierLocal, LocalGoodAt: []string{"chat", "notes"},
		LocalBudget: 2.5, LocalInput: 0.11,
		ClaudeOn: false, ClaudeWrite: 3.75, ClaudeIn: nil,
		Providers: []string{"local", "glm"}, Strategy: config.StrategyRotate,
		Classifier: "local", Timeout: "1.5s",
	}
	if diff := cmp.Diff(want, g); diff != "" {
		t.Errorf("loaded configuration (-want +got):\n%s", diff)
	}
}

// TestApplyEscapes: a string the user typed is a literal, never HCL
// source, whatever it holds.
func TestApplyEscapes(t *testing.T) {
	t.Parallel()
	hostile := "sub\"\n}\nprovider \"evil\" {\n  plugin = \"${file(\"/etc/passwd\")}\" %{ if true }x%{ endif }"
	val, _ := json.Marshal(hostile)
	res, err := Apply("axon.hcl", read(t, "axon.hcl"), []Edit{{Block: "provider", Name: "glm", Field: "tier", Value: val}})
	if err != nil {
		t.Fatal(err)
	}
	f, diags := hclsyntax.ParseConfig(res.Src, "axon.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	body := f.Body.(*hclsyntax.Body)
	for _, b := range body.Blocks {
		if b.Type == "provider" && b.Labels[0] == "evil" {
			t.Fatalf("the value became a block:\n%s", res.Src)
		}
	}
	var glm *hclsyntax.Block
	for _, b := range body.Blocks {
		if b.Type == "provider" && b.Labels[0] == "glm" {
			glm = b
		}
	}
	v, diags := glm.Body.Attributes["tier"].Expr.Value(nil)
	if diags.HasErrors() {
		t.Fatalf("tier is not a plain literal: %s", diags)
	}
	if v.AsString() != hostile {
		t.Errorf("tier reads back as %q, want %q", v.AsString(), hostile)
	}
}

func TestApplyErrors(t *testing.T) {
	t.Parallel()
	valid := ed("provider", "glm", "tier", `"api"`)
	tests := []struct {
		name string
		edit Edit
		msg  string // part of the error
	}{
		{"unknown block", ed("tool", "x", "enabled", `true`), `unknown block "tool"`},
		{"unknown provider field", ed("provider", "glm", "model", `"x"`), `unknown provider field "model"`},
		{"unknown pricing field", ed("provider", "glm", "pricing.cache", `1`), `unknown provider field "pricing.cache"`},
		{"chain field on a provider", ed("provider", "glm", "strategy", `"rotate"`), `unknown provider field "strategy"`},
		{"unknown billing field", ed("billing", "", "budget", `1`), `unknown billing field "budget"`},
		{"provider not in file", ed("provider", "gpt", "tier", `"api"`), `no provider "gpt" block`},
		{"chain not in file", ed("chain", "fast", "strategy", `"rotate"`), `no chain "fast" block`},
		{"removing from a provider not in file", ed("provider", "gpt", "budget", `null`), `no provider "gpt" block`},
		{"provider without name", ed("provider", "", "tier", `"api"`), "needs the provider's name"},
		{"billing with a name", ed("billing", "main", "enabled", `true`), "takes no name"},
		{"no value", Edit{Block: "provider", Name: "glm", Field: "tier"}, "no value"},
		{"not JSON", ed("provider", "glm", "tier", `sub`), "not JSON"},
		{"enabled a string", ed("provider", "glm", "enabled", `"true"`), "true or false"},
		{"billing a number", ed("billing", "", "enabled", `1`), "true or false"},
		{"tier a number", ed("provider", "glm", "tier", `3`), "must be a string"},
		{"good_at a string", ed("provider", "glm", "good_at", `"chat"`), "array of strings"},
		{"good_at numbers", ed("provider", "glm", "good_at", `[1, 2]`), "array of strings"},
		{"good_at a null entry", ed("provider", "glm", "good_at", `["chat", null]`), "array of strings"},
		{"budget a string", ed("provider", "glm", "budget", `"20"`), "must be a number"},
		{"pricing a bool", ed("provider", "glm", "pricing.input", `true`), "must be a number"},
		{"providers a string", ed("chain", "default", "providers", `"glm"`), "array of provider names"},
		{"providers not names", ed("chain", "default", "providers", `["glm", "x] + [1"]`), `"x] + [1" is not a provider name`},
		{"strategy an array", ed("chain", "default", "strategy", `["rotate"]`), "must be a string"},
		{"classifier a string", ed("chain", "code", "classifier", `"local"`), "must be an object"},
		{"classifier unknown key", ed("chain", "code", "classifier", `{"provider": "local", "model": "x"}`), `unknown classifier key "model"`},
		{"classifier provider a number", ed("chain", "code", "classifier", `{"provider": 1}`), "classifier provider: the value must be a provider name"},
		{"classifier provider not a name", ed("chain", "code", "classifier", `{"provider": "provider.local"}`), "not a provider name"},
		{"classifier timeout a number", ed("chain", "code", "classifier", `{"provider": "local", "timeout": 2}`), "classifier timeout: the value must be a string"},
	}
	src := read(t, "axon.hcl")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := Apply("axon.hcl", src, []Edit{valid, tt.edit})
			var ee *EditError
			if !errors.As(err, &ee) {
				t.Fatalf("err = %v (result %v), want an *EditError", err, res)
			}
			if ee.Index != 1 || !cmp.Equal(ee.Edit, tt.edit) {
				t.Errorf("error names edit %d %+v, want 1 %+v", ee.Index, ee.Edit, tt.edit)
			}
			if !strings.Contains(err.Error(), tt.msg) || !strings.HasPrefix(err.Error(), "edit 1 (") {
				t.Errorf("err = %q, want it to start with edit 1 and say %q", err, tt.msg)
			}
		})
	}
}

func TestApplyRefusesSource(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, src, msg string
	}{
		{"does not parse", "provider \"glm\" {\n  tier = \n", "does not parse"},
		{"tabs between tokens", "provider \"glm\" {\n\ttier = \"sub\"\n}\n", "tabs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Apply("axon.hcl", []byte(tt.src), []Edit{ed("provider", "glm", "tier", `"api"`)})
			if err == nil || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("err = %v, want one saying %q", err, tt.msg)
			}
		})
	}
}
