package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"

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
}

// schema declares the attributes above to the host.
func schema() sdk.Schema {
	return sdk.Schema{Attributes: []sdk.Attribute{
		{Name: "base_url", Type: "string", Default: jsonString(defaultBaseURL),
			Description: "Messages API root; requests go to {base_url}/v1/messages. Any Anthropic-compatible endpoint works, e.g. https://api.z.ai/api/anthropic."},
		{Name: "model", Type: "string",
			Description: "Model used when a request names none, e.g. claude-sonnet-4-5."},
		{Name: "max_tokens", Type: "number", Default: json.RawMessage(fmt.Sprint(defaultMaxTokens)),
			Description: "max_tokens sent when a request sets no limit (the Messages API requires one)."},
		{Name: "anthropic_version", Type: "string", Default: jsonString(defaultAnthropicVersion),
			Description: "Value of the anthropic-version header."},
		{Name: "headers", Type: "map(string)",
			Description: "Extra request headers, e.g. { \"anthropic-beta\" = \"...\" }. Credential headers are refused: the host injects the credential."},
		{Name: "thinking_budget", Type: "number", Default: json.RawMessage("0"),
			Description: "Extended thinking budget_tokens; 0 turns thinking off. A request can override it with the thinking_budget option."},
	}}
}

// reservedHeaders may not be set through the headers attribute: the first
// two carry credentials, which are never plugin configuration, and the last
// has its own attribute.
var reservedHeaders = []string{"Authorization", "X-Api-Key", "Anthropic-Version"}

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
	u, err := url.Parse(c.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return config{}, sdk.Permanentf("base_url %q: want an absolute http or https URL", c.BaseURL)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return config{}, sdk.Permanentf("base_url %q: must not carry a query or fragment", c.BaseURL)
	}
	c.BaseURL = strings.TrimRight(c.BaseURL, "/")
	if c.MaxTokens <= 0 {
		return config{}, sdk.Permanentf("max_tokens must be positive, got %d", c.MaxTokens)
	}
	if c.ThinkingBudget < 0 {
		return config{}, sdk.Permanentf("thinking_budget must be 0 (off) or positive, got %d", c.ThinkingBudget)
	}
	if c.AnthropicVersion == "" {
		return config{}, sdk.Permanentf("anthropic_version must not be empty")
	}
	for name := range c.Headers {
		for _, r := range reservedHeaders {
			if http.CanonicalHeaderKey(name) == r {
				return config{}, sdk.Permanentf("headers: %q may not be set here", name)
			}
		}
	}
	return c, nil
}

// options are the per-request knobs read from sdk.Request.Options. Options
// this plugin does not know are ignored: one request may travel a chain of
// different providers.
type options struct {
	ThinkingBudget *int
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
	return o, nil
}

func jsonString(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}
