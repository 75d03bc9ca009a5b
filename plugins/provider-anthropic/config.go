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
	defaultBaseURL          = "https://api.anthropic.com"
	defaultMaxTokens        = 4096
	defaultAnthropicVersion = "2023-06-01"
)

// config is the plugin-owned part of a provider block.
type config struct {
	BaseURL          string            `json:"base_url"`
	Model            string            `json:"model"`
	MaxTokens        int               `json:"max_tokens"`
	AnthropicVersion string            `json:"anthropic_version"`
	Headers          map[string]string `json:"headers"`
	ThinkingBudget   int               `json:"thinking_budget"`
	StrictStream     bool              `json:"strict_stream"`

	header http.Header // Headers, checked
}

// schema declares the attributes above to the host.
func schema() sdk.Schema {
	return sdk.Schema{Attributes: []sdk.Attribute{
		sdk.BaseURLAttribute(defaultBaseURL,
			"Messages API root; requests go to {base_url}/v1/messages. Any Anthropic-compatible endpoint works, e.g. https://api.z.ai/api/anthropic."),
		sdk.ModelAttribute("claude-sonnet-4-5"),
		sdk.MaxTokensAttribute(defaultMaxTokens,
			"max_tokens sent when a request sets no limit (the Messages API requires one)."),
		{Name: "anthropic_version", Type: "string", Default: sdk.Default(defaultAnthropicVersion),
			Description: "Value of the anthropic-version header."},
		sdk.HeadersAttribute(`{ "anthropic-beta" = "..." }`),
		{Name: "thinking_budget", Type: "number", Default: sdk.Default(0),
			Description: "Extended thinking budget_tokens; 0 turns thinking off. A request can override it with the thinking_budget option."},
		sdk.StrictStreamAttribute(),
	}}
}

// parseConfig decodes and validates the plugin-owned values.
func parseConfig(cfg sdk.Config) (config, error) {
	c := config{
		BaseURL:          defaultBaseURL,
		MaxTokens:        defaultMaxTokens,
		AnthropicVersion: defaultAnthropicVersion,
	}
	if err := cfg.Decode(&c); err != nil {
		return config{}, err
	}
	var err error
	if c.BaseURL, err = sdk.ParseBaseURL(c.BaseURL); err != nil {
		return config{}, err
	}
	if c.MaxTokens <= 0 {
		return config{}, sdk.Permanentf("max_tokens must be positive, got %d", c.MaxTokens)
	}
	if c.ThinkingBudget < 0 {
		return config{}, sdk.Permanentf("thinking_budget must be 0 (off) or positive, got %d", c.ThinkingBudget)
	}
	if c.AnthropicVersion == "" {
		return config{}, sdk.Permanentf("anthropic_version must not be empty")
	}
	// anthropic-version has its own attribute.
	if c.header, err = sdk.ExtraHeaders(c.Headers, "Anthropic-Version"); err != nil {
		return config{}, err
	}
	return c, nil
}

// options are the per-request knobs read from sdk.Request.Options. Options
// this plugin does not know are ignored: one request may travel a chain of
// different providers.
type options struct {
	ThinkingBudget *int
	sdk.Sampling   // top_p and top_k are rendered; the Messages API has no seed
}

func parseOptions(raw map[string]json.RawMessage) (options, error) {
	var o options
	if v, ok := raw["thinking_budget"]; ok {
		var n int
		if err := json.Unmarshal(v, &n); err != nil || n < 0 {
			return options{}, sdk.Permanentf("option thinking_budget: want a non-negative integer")
		}
		o.ThinkingBudget = &n
	}
	var err error
	if o.Sampling, err = sdk.SamplingOf(raw); err != nil {
		return options{}, err
	}
	return o, nil
}
