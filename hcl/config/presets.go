package config

import (
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/axonhq/axon/sdk"
	"github.com/zclconf/go-cty/cty"
)

// Preset is one row of provider defaults. A provider block naming it gets
// these values for every attribute it leaves out; the block always wins.
//
// BaseURL convention: for the "openai" plugin it ends before
// "/chat/completions"; for the "anthropic" plugin it ends before
// "/v1/messages"; for the "gemini" plugin it ends before
// "/v1beta/models/..." (as the vendors' own SDKs take it).
type Preset struct {
	Name    string
	Plugin  string   // provider plugin: "openai", "anthropic", "gemini" or "cli"
	BaseURL string   // plugin-owned base_url
	Auth    sdk.Auth // where the host puts the credential
	KeyEnv  string   // default credential env var; "" when no key is needed
	Model   string   // plugin-owned model; "" when the user must choose
	// Tier is TierUnset unless the preset is unambiguous: "api" for the
	// vendors that only bill per token (behind the paid gate), "local" for
	// Ollama. Free tiers (groq, cerebras, gemini, github, mistral, nvidia)
	// and plans that may be a subscription (glm) are the block's to say.
	Tier Tier

	// FirstToken and Response override the global timeouts where the
	// provider is known to start slowly; zero keeps the default.
	FirstToken time.Duration
	Response   time.Duration

	// Values are more plugin-owned attributes the preset fills, by name,
	// like base_url and model: a command-line client's command, parse,
	// text_path and the rest (plugin "cli"). Only those the plugin declares
	// are filled, and never one the block writes.
	Values map[string]cty.Value
	// Allow is the egress allow list when the block's egress has none: the
	// hosts a command-line client needs, and no more.
	Allow []string
	// NoStructuredOutput: the vendor's API cannot guarantee a JSON
	// schema although its plugin can render one (DeepSeek takes only
	// json_object), so the block's structured_output defaults to false
	// and the chain sends strict-schema requests elsewhere.
	NoStructuredOutput bool
	Proxy              bool   // egress { proxy } when the block does not say
	Home               string // home when the block sets none, "~/..."
	// Login is the command that logs the client in, run by the owner with
	// HOME set to the block's home (claude and gemini ask at their first
	// start); "" for presets without a home.
	Login string
	// WrittenFor names the client version the command, the output fields
	// and the patterns were written against; a newer client may change
	// them. "" for HTTP presets, whose API is versioned by its URL.
	WrittenFor string

	Docs string // where the endpoint is documented
}

// PluginCLI is the provider plugin that drives a vendor's command-line
// client (axon-provider-cli): it needs the egress proxy and a home.
const PluginCLI = "cli"

var bearer = sdk.Auth{Scheme: sdk.AuthBearer}

// presets is the frozen preset table: adding a provider is one row. Default
// models are set only where the vendor keeps a stable alias ("-latest") or
// the model runs locally; vendors retire dated model names too often for a
// compiled-in default to stay right.
var presets = []Preset{
	{Name: "openai", Plugin: "openai", BaseURL: "https://api.openai.com/v1", Auth: bearer, KeyEnv: "OPENAI_API_KEY", Tier: TierAPI,
		Docs: "https://platform.openai.com/docs/api-reference"},
	{Name: "anthropic", Plugin: "anthropic", BaseURL: "https://api.anthropic.com", Auth: sdk.Auth{Scheme: sdk.AuthHeader, Name: "x-api-key"}, KeyEnv: "ANTHROPIC_API_KEY", Tier: TierAPI,
		Docs: "https://docs.anthropic.com/en/api/messages"},
	{Name: "glm", Plugin: "anthropic", BaseURL: "https://api.z.ai/api/anthropic", Auth: bearer, KeyEnv: "ZAI_API_KEY",
		Docs: "https://docs.z.ai/api-reference/introduction"},
	{Name: "ollama", Plugin: "openai", BaseURL: "http://127.0.0.1:11434/v1", Model: "qwen2.5:3b", Tier: TierLocal,
		FirstToken: 3 * time.Minute, Response: 3 * time.Minute, // a cold model loads before it answers
		Docs: "https://github.com/ollama/ollama/blob/main/docs/openai.md"},
	{Name: "openrouter", Plugin: "openai", BaseURL: "https://openrouter.ai/api/v1", Auth: bearer, KeyEnv: "OPENROUTER_API_KEY", Tier: TierAPI,
		Docs: "https://openrouter.ai/docs/api-reference/overview"},
	{Name: "groq", Plugin: "openai", BaseURL: "https://api.groq.com/openai/v1", Auth: bearer, KeyEnv: "GROQ_API_KEY",
		Docs: "https://console.groq.com/docs/openai"},
	{Name: "cerebras", Plugin: "openai", BaseURL: "https://api.cerebras.ai/v1", Auth: bearer, KeyEnv: "CEREBRAS_API_KEY",
		Docs: "https://inference-docs.cerebras.ai"},
	{Name: "nvidia", Plugin: "openai", BaseURL: "https://integrate.api.nvidia.com/v1", Auth: bearer, KeyEnv: "NVIDIA_API_KEY",
		Docs: "https://build.nvidia.com"},
	{Name: "mistral", Plugin: "openai", BaseURL: "https://api.mistral.ai/v1", Auth: bearer, KeyEnv: "MISTRAL_API_KEY", Model: "mistral-small-latest",
		Docs: "https://docs.mistral.ai/api"},
	{Name: "github", Plugin: "openai", BaseURL: "https://models.github.ai/inference", Auth: bearer, KeyEnv: "GITHUB_TOKEN",
		Docs: "https://docs.github.com/en/rest/models/inference"},
	{Name: "gemini", Plugin: "openai", BaseURL: "https://generativelanguage.googleapis.com/v1beta/openai", Auth: bearer, KeyEnv: "GEMINI_API_KEY", Model: "gemini-flash-latest",
		Docs: "https://ai.google.dev/gemini-api/docs/openai"},
	{Name: "gemini-native", Plugin: "gemini", BaseURL: "https://generativelanguage.googleapis.com", Auth: sdk.Auth{Scheme: sdk.AuthHeader, Name: "x-goog-api-key"}, KeyEnv: "GEMINI_API_KEY", Model: "gemini-flash-latest",
		Docs: "https://ai.google.dev/api/generate-content"},
	{Name: "deepseek", Plugin: "openai", BaseURL: "https://api.deepseek.com", Auth: bearer, KeyEnv: "DEEPSEEK_API_KEY", Tier: TierAPI,
		NoStructuredOutput: true, // JSON Output is json_object only (api-docs.deepseek.com/guides/json_mode)
		Docs:               "https://api-docs.deepseek.com"},
	{Name: "xai", Plugin: "openai", BaseURL: "https://api.x.ai/v1", Auth: bearer, KeyEnv: "XAI_API_KEY", Tier: TierAPI,
		Docs: "https://docs.x.ai/api/integrations"},

	// Command-line clients, logged in with the owner's subscription: the
	// credential is the client's own login in the block's home, which the
	// host never reads. Each row says what its vendor documents and what
	// it does not; hcl/README.md repeats it.
	//
	// Claude Code: -p (--print), --output-format json ({"type":"result",
	// "is_error":…, "result":…, "usage":{"input_tokens":…,
	// "output_tokens":…}}), --model with its aliases (sonnet, opus, haiku),
	// --tools "" (no built-in tools: a plain model call) and
	// --no-session-persistence are in its CLI reference. --tools is
	// variadic, so an option follows it and the prompt comes last. The
	// documented network needs are api.anthropic.com, plus claude.ai
	// (WebFetch, unused without tools), statsig.anthropic.com and sentry.io
	// (telemetry and error reports, turned off by
	// CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC). platform.claude.com is not
	// in Anthropic's list: it is where third parties report the login's
	// token refresh goes (since 2.1.81); without it a login would lapse
	// after about 8 hours. The patterns are messages users report, not a
	// documented contract; the exit code is 1 for every failure.
	{Name: "claude-code", Plugin: PluginCLI, Model: "sonnet", Tier: TierSub,
		FirstToken: cliFirstToken,
		Values: map[string]cty.Value{
			"command":            strList("claude", "-p", "--output-format", "json", "--tools", "", "--no-session-persistence", "--model", "{model}"),
			"parse":              cty.StringVal("json"),
			"text_path":          cty.StringVal("result"),
			"error_path":         cty.StringVal("is_error"),
			"input_tokens_path":  cty.StringVal("usage.input_tokens"),
			"output_tokens_path": cty.StringVal("usage.output_tokens"),
			"auth_patterns":      strList(`(?i)invalid api key`, `(?i)please run /login`, `(?i)oauth token (has )?expired`, `authentication_error`),
			"quota_patterns":     strList(`(?i)usage limit`, `(?i)hit your limit`, `rate_limit_error`),
			"scrub_env":          strList("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL", "CLAUDE_CODE_USE_BEDROCK", "CLAUDE_CODE_USE_VERTEX"),
			"env":                strMap(map[string]string{"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"}),
			"timeout":            cty.StringVal(cliTimeout),
		},
		Allow: []string{"api.anthropic.com", "platform.claude.com"}, Proxy: true,
		Home: "~/.config/axon/claude-home", Login: "claude",
		WrittenFor: "Claude Code 2.1",
		Docs:       "https://code.claude.com/docs/en/cli-reference"},
	// Codex: `codex exec` is its documented non-interactive mode; --json
	// writes JSONL events, the answer in {"type":"item.completed",
	// "item":{"type":"agent_message","text":…}}, the usage in
	// {"type":"turn.completed","usage":{"input_tokens":…,
	// "output_tokens":…}}, a failure in {"type":"turn.failed",
	// "error":{"message":…}} (exec exits 0 even then); the paths filter on
	// type, as reasoning items carry item.text too. --skip-git-repo-check
	// lets it run
	// outside a git checkout, --sandbox read-only keeps its own tools from
	// writing. OpenAI documents no network list (openai/codex#6344): a
	// ChatGPT login talks to chatgpt.com (backend-api/codex) and refreshes
	// at auth.openai.com, as reported by users who firewall it; an API-key
	// login needs api.openai.com instead (and is tier "api"). No model by
	// default: Codex's own (its config.toml) applies; to choose one, write
	// command with "-m", "{model}". The patterns are reported messages.
	{Name: "codex", Plugin: PluginCLI, Tier: TierSub,
		FirstToken: cliFirstToken,
		Values: map[string]cty.Value{
			"command":            strList("codex", "exec", "--json", "--skip-git-repo-check", "--sandbox", "read-only"),
			"parse":              cty.StringVal("jsonl"),
			"text_path":          cty.StringVal("[type=item.completed].item[type=agent_message].text"),
			"error_path":         cty.StringVal("[type=turn.failed].error.message"),
			"input_tokens_path":  cty.StringVal("[type=turn.completed].usage.input_tokens"),
			"output_tokens_path": cty.StringVal("[type=turn.completed].usage.output_tokens"),
			"auth_patterns":      strList(`(?i)\b401\b`, `(?i)unauthorized`, `(?i)codex login`),
			"quota_patterns":     strList(`(?i)usage limit`, `(?i)\b429\b`, `(?i)rate limit`),
			"scrub_env":          strList("OPENAI_API_KEY", "CODEX_API_KEY", "OPENAI_BASE_URL", "CODEX_HOME"),
			"timeout":            cty.StringVal(cliTimeout),
		},
		Allow: []string{"chatgpt.com", "auth.openai.com"}, Proxy: true,
		Home: "~/.config/axon/codex-home", Login: "codex login --device-auth",
		WrittenFor: "codex-cli 0.128",
		Docs:       "https://github.com/openai/codex/blob/main/docs/exec.md"},
	// Gemini CLI: -p (--prompt) runs it headless, --output-format json
	// writes {"response":…, "stats":{…}, "error":{"type":…,"message":…}},
	// exit code 41 is an authentication failure: all in its headless
	// reference. Its token counts are per model, under
	// stats.models.<model name>.tokens, summed over the models by "*"; the
	// names prompt and candidates come from users' output and third-party
	// parsers, not the reference (which words them "prompt, response,
	// cached, total"). Google
	// documents no network list: a Google login calls the Code Assist API
	// (cloudcode-pa.googleapis.com, the endpoint in the client's source)
	// and refreshes at oauth2.googleapis.com; usage statistics
	// (play.googleapis.com) are left out. No model by default: the
	// client's own ("auto") applies; to choose one, write command with
	// "--model", "{model}". The patterns are reported messages.
	{Name: "gemini-cli", Plugin: PluginCLI, Tier: TierSub,
		FirstToken: cliFirstToken,
		Values: map[string]cty.Value{
			"command":            strList("gemini", "--output-format", "json", "--prompt", "{prompt}"),
			"parse":              cty.StringVal("json"),
			"text_path":          cty.StringVal("response"),
			"error_path":         cty.StringVal("error.message"),
			"input_tokens_path":  cty.StringVal("stats.models.*.tokens.prompt"),
			"output_tokens_path": cty.StringVal("stats.models.*.tokens.candidates"),
			"auth_exit_codes":    numList(41),
			"auth_patterns":      strList(`UNAUTHENTICATED`, `(?i)invalid_grant`),
			"quota_patterns":     strList(`RESOURCE_EXHAUSTED`, `(?i)quota`, `(?i)\b429\b`),
			"scrub_env":          strList("GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_GENAI_USE_GCA", "GOOGLE_APPLICATION_CREDENTIALS"),
			"timeout":            cty.StringVal(cliTimeout),
		},
		Allow: []string{"cloudcode-pa.googleapis.com", "oauth2.googleapis.com"}, Proxy: true,
		Home: "~/.config/axon/gemini-home", Login: "gemini",
		WrittenFor: "Gemini CLI, headless reference of 2026-06",
		Docs:       "https://github.com/google-gemini/gemini-cli/blob/main/docs/cli/headless.md"},
}

// A command-line client answers in one piece, when it is done: its first
// token is its whole answer, so it gets as long as its own timeout.
const (
	cliTimeout    = "5m"
	cliFirstToken = 5 * time.Minute
)

func strList(items ...string) cty.Value {
	vals := make([]cty.Value, len(items))
	for i, s := range items {
		vals[i] = cty.StringVal(s)
	}
	return cty.ListVal(vals)
}

func numList(items ...int64) cty.Value {
	vals := make([]cty.Value, len(items))
	for i, n := range items {
		vals[i] = cty.NumberIntVal(n)
	}
	return cty.ListVal(vals)
}

func strMap(m map[string]string) cty.Value {
	vals := make(map[string]cty.Value, len(m))
	for k, v := range m {
		vals[k] = cty.StringVal(v)
	}
	return cty.MapVal(vals)
}

// LookupPreset returns the preset called name.
func LookupPreset(name string) (Preset, bool) {
	i := slices.IndexFunc(presets, func(p Preset) bool { return p.Name == name })
	if i < 0 {
		return Preset{}, false
	}
	return presets[i].clone(), true
}

// Presets returns a copy of the preset table, in table order.
func Presets() []Preset {
	out := make([]Preset, len(presets))
	for i, p := range presets {
		out[i] = p.clone()
	}
	return out
}

// clone copies the row's maps and slices (cty values are immutable), so
// that no caller can change the table.
func (p Preset) clone() Preset {
	p.Values = maps.Clone(p.Values)
	p.Allow = slices.Clone(p.Allow)
	return p
}

// needsModel reports whether a block naming the preset must set model: an
// HTTP preset without a default does; a command-line client does only when
// its command passes {model}, else the client picks its own.
func (p Preset) needsModel() bool {
	return p.Model == "" && (p.Plugin != PluginCLI || p.commandUses("{model}"))
}

// commandUses reports whether the preset's command has an element holding
// token ("{model}"); false for presets without a command.
func (p Preset) commandUses(token string) bool {
	return commandUses(p.Values["command"], token)
}

func commandUses(command cty.Value, token string) bool {
	if command == cty.NilVal || command.IsNull() || !command.IsWhollyKnown() || !command.CanIterateElements() {
		return false
	}
	for it := command.ElementIterator(); it.Next(); {
		_, v := it.Element()
		if v.Type() == cty.String && !v.IsNull() && strings.Contains(v.AsString(), token) {
			return true
		}
	}
	return false
}

// PresetNames lists the preset names, in table order.
func PresetNames() []string {
	names := make([]string, len(presets))
	for i, p := range presets {
		names[i] = p.Name
	}
	return names
}

// envPrefix is the upper-case prefix of a preset's AXON_CHAIN variables;
// a dash, which no environment variable name may hold, becomes "_"
// (gemini-native: GEMINI_NATIVE_API_KEY).
func (p Preset) envPrefix() string { return strings.ToUpper(strings.ReplaceAll(p.Name, "-", "_")) }
