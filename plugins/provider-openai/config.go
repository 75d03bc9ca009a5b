package main

import (
	"encoding/json"
	"net/http"

	"github.com/axonhq/axon/sdk"
)

// Defaults for the plugin-owned attributes. They are declared in the schema
// (the host applies them) and applied again here, so a Configure call with a
// partial value set behaves the same.
const (
	defaultBaseURL        = "https://api.openai.com/v1"
	defaultMaxTokensField = fieldMaxTokens
	defaultIncludeUsage   = true
	defaultReasoningField = reasoningNone
	defaultAPI            = apiChat
)

// The wire families the plugin speaks: Chat Completions, which every
// compatible server offers, or OpenAI's Responses API.
const (
	apiChat      = "chat"
	apiResponses = "responses"
)

// Where a limit on output tokens goes: classic models take max_tokens,
// OpenAI reasoning models accept only max_completion_tokens.
const (
	fieldMaxTokens           = "max_tokens"
	fieldMaxCompletionTokens = "max_completion_tokens"
)

// Where reasoning from earlier assistant turns is sent back. There is no
// standard field: DeepSeek, Z.ai and vLLM read reasoning_content, Ollama and
// OpenRouter read reasoning, and strict servers (OpenAI, Groq, Mistral)
// reject unknown message fields, so the safe default sends nothing.
const (
	reasoningNone    = "none"
	reasoningContent = "reasoning_content"
	reasoningPlain   = "reasoning"
)

// config is the plugin-owned part of a provider block.
type config struct {
	BaseURL         string            `json:"base_url"`
	Model           string            `json:"model"`
	MaxTokens       int               `json:"max_tokens"`
	MaxTokensField  string            `json:"max_tokens_field"`
	Headers         map[string]string `json:"headers"`
	ReasoningEffort string            `json:"reasoning_effort"`
	ReasoningField  string            `json:"reasoning_field"`
	IncludeUsage    bool              `json:"include_usage"`
	API             string            `json:"api"`
	StrictStream    bool              `json:"strict_stream"`

	header http.Header // Headers, checked
}

// schema declares the attributes above to the host.
func schema() sdk.Schema {
	return sdk.Schema{Attributes: []sdk.Attribute{
		sdk.BaseURLAttribute(defaultBaseURL,
			"API root; requests go to {base_url}/chat/completions ({base_url}/responses with api = responses), e.g. http://127.0.0.1:11434/v1 for Ollama."),
		sdk.ModelAttribute("gpt-4o-mini"),
		sdk.MaxTokensAttribute(0,
			"Output token limit sent when a request sets none; 0 leaves it to the server."),
		{Name: "max_tokens_field", Type: "string", Default: sdk.Default(defaultMaxTokensField),
			Description: "Field that carries the limit: max_tokens, or max_completion_tokens for OpenAI reasoning models."},
		sdk.HeadersAttribute("OpenRouter's HTTP-Referer and X-Title"),
		{Name: "reasoning_effort", Type: "string",
			Description: "reasoning_effort sent with every request (low, medium, high, ...); empty sends none. A request can override it with the reasoning_effort option."},
		{Name: "reasoning_field", Type: "string", Default: sdk.Default(defaultReasoningField),
			Description: "Assistant-message field that carries earlier reasoning back: reasoning_content (DeepSeek, Z.ai, vLLM), reasoning (Ollama, OpenRouter) or none."},
		{Name: "include_usage", Type: "bool", Default: sdk.Default(true),
			Description: "Send stream_options.include_usage so the server reports token usage; turn off for servers that reject it."},
		{Name: "api", Type: "string", Default: sdk.Default(defaultAPI),
			Description: "Wire family: chat (POST {base_url}/chat/completions, every compatible server) or responses (POST {base_url}/responses, OpenAI's Responses API; no stop sequences)."},
		sdk.StrictStreamAttribute(),
	}}
}

// parseConfig decodes and validates the plugin-owned values.
func parseConfig(cfg sdk.Config) (config, error) {
	c := config{
		BaseURL:        defaultBaseURL,
		MaxTokensField: defaultMaxTokensField,
		ReasoningField: defaultReasoningField,
		IncludeUsage:   defaultIncludeUsage,
		API:            defaultAPI,
	}
	if err := cfg.Decode(&c); err != nil {
		return config{}, err
	}
	var err error
	if c.BaseURL, err = sdk.ParseBaseURL(c.BaseURL); err != nil {
		return config{}, err
	}
	if c.MaxTokens < 0 {
		return config{}, sdk.Permanentf("max_tokens must be 0 (server default) or positive, got %d", c.MaxTokens)
	}
	switch c.MaxTokensField {
	case fieldMaxTokens, fieldMaxCompletionTokens:
	default:
		return config{}, sdk.Permanentf("max_tokens_field %q: want %s or %s", c.MaxTokensField, fieldMaxTokens, fieldMaxCompletionTokens)
	}
	switch c.ReasoningField {
	case reasoningNone, reasoningContent, reasoningPlain:
	default:
		return config{}, sdk.Permanentf("reasoning_field %q: want %s, %s or %s", c.ReasoningField, reasoningContent, reasoningPlain, reasoningNone)
	}
	switch c.API {
	case apiChat, apiResponses:
	default:
		return config{}, sdk.Permanentf("api %q: want %s or %s", c.API, apiChat, apiResponses)
	}
	if c.header, err = sdk.ExtraHeaders(c.Headers); err != nil {
		return config{}, err
	}
	return c, nil
}

// options are the per-request knobs read from sdk.Request.Options. Options
// this plugin does not know are ignored: one request may travel a chain of
// different providers.
type options struct {
	ReasoningEffort   string
	ResponseFormat    json.RawMessage
	ParallelToolCalls *bool
	TopP              *float64
	Seed              *int64
}

func parseOptions(raw map[string]json.RawMessage) (options, error) {
	var o options
	decode := func(name string, dst any) error {
		v, ok := raw[name]
		if !ok {
			return nil
		}
		if err := json.Unmarshal(v, dst); err != nil {
			return sdk.Permanentf("option %s: %v", name, err)
		}
		return nil
	}
	if err := decode("reasoning_effort", &o.ReasoningEffort); err != nil {
		return options{}, err
	}
	if err := decode("parallel_tool_calls", &o.ParallelToolCalls); err != nil {
		return options{}, err
	}
	if err := decode("top_p", &o.TopP); err != nil {
		return options{}, err
	}
	if err := decode("seed", &o.Seed); err != nil {
		return options{}, err
	}
	if v, ok := raw["response_format"]; ok {
		if !json.Valid(v) || len(v) == 0 || v[0] != '{' {
			return options{}, sdk.Permanentf("option response_format: want a JSON object")
		}
		o.ResponseFormat = v
	}
	return o, nil
}
