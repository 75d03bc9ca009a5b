package config

import (
	"slices"
	"strings"
	"time"

	"github.com/axonhq/axon/sdk"
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
	Plugin  string   // provider plugin: "openai", "anthropic" or "gemini"
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

	Docs string // where the endpoint is documented
}

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
		Docs: "https://api-docs.deepseek.com"},
	{Name: "xai", Plugin: "openai", BaseURL: "https://api.x.ai/v1", Auth: bearer, KeyEnv: "XAI_API_KEY", Tier: TierAPI,
		Docs: "https://docs.x.ai/api/integrations"},
}

// LookupPreset returns the preset called name.
func LookupPreset(name string) (Preset, bool) {
	i := slices.IndexFunc(presets, func(p Preset) bool { return p.Name == name })
	if i < 0 {
		return Preset{}, false
	}
	return presets[i], true
}

// Presets returns a copy of the preset table, in table order.
func Presets() []Preset { return slices.Clone(presets) }

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
