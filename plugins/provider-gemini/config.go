package main

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/axonhq/axon/sdk"
)

// defaultBaseURL is the Gemini API root. It is declared in the schema (the
// host applies it) and applied again here, so a Configure call with a
// partial value set behaves the same.
const defaultBaseURL = "https://generativelanguage.googleapis.com"

// config is the plugin-owned part of a provider block.
type config struct {
	BaseURL         string            `json:"base_url"`
	Model           string            `json:"model"`
	MaxTokens       int               `json:"max_tokens"`
	ThinkingBudget  *int              `json:"thinking_budget"`
	IncludeThoughts bool              `json:"include_thoughts"`
	StrictStream    bool              `json:"strict_stream"`
	Headers         map[string]string `json:"headers"`

	header http.Header // Headers, checked
}

// schema declares the attributes above to the host.
func schema() sdk.Schema {
	return sdk.Schema{Attributes: []sdk.Attribute{
		sdk.BaseURLAttribute(defaultBaseURL,
			"API root; requests go to {base_url}/v1beta/models/{model}:streamGenerateContent?alt=sse."),
		sdk.ModelAttribute("gemini-2.5-flash"),
		sdk.MaxTokensAttribute(0,
			"generationConfig.maxOutputTokens sent when a request sets no limit; 0 leaves it to the model."),
		{Name: "thinking_budget", Type: "number",
			Description: "generationConfig.thinkingConfig.thinkingBudget: 0 turns thinking off, -1 lets the model decide; unset sends none. A request can override it with the thinking_budget option."},
		{Name: "include_thoughts", Type: "bool", Default: sdk.Default(false),
			Description: "Ask for thought summaries (thinkingConfig.includeThoughts); they stream as reasoning deltas."},
		sdk.HeadersAttribute(""),
		sdk.StrictStreamAttribute(),
	}}
}

// parseConfig decodes and validates the plugin-owned values.
func parseConfig(cfg sdk.Config) (config, error) {
	c := config{BaseURL: defaultBaseURL}
	if err := cfg.Decode(&c); err != nil {
		return config{}, err
	}
	var err error
	if c.BaseURL, err = sdk.ParseBaseURL(c.BaseURL); err != nil {
		return config{}, err
	}
	if strings.HasSuffix(c.BaseURL, "/v1beta") || strings.HasSuffix(c.BaseURL, "/v1") {
		return config{}, sdk.Permanentf("base_url %q: leave out the API version; the plugin adds /v1beta", c.BaseURL)
	}
	if c.MaxTokens < 0 {
		return config{}, sdk.Permanentf("max_tokens must be 0 (model default) or positive, got %d", c.MaxTokens)
	}
	if c.ThinkingBudget != nil && *c.ThinkingBudget < -1 {
		return config{}, sdk.Permanentf("thinking_budget must be -1 (dynamic), 0 (off) or positive, got %d", *c.ThinkingBudget)
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
	ThinkingBudget  *int
	IncludeThoughts *bool
	sdk.Sampling
}

func parseOptions(raw map[string]json.RawMessage) (options, error) {
	var o options
	if v, ok := raw["thinking_budget"]; ok {
		var n int
		if err := json.Unmarshal(v, &n); err != nil || n < -1 {
			return options{}, sdk.Permanentf("option thinking_budget: want an integer >= -1")
		}
		o.ThinkingBudget = &n
	}
	if v, ok := raw["include_thoughts"]; ok {
		var b bool
		if err := json.Unmarshal(v, &b); err != nil {
			return options{}, sdk.Permanentf("option include_thoughts: want a boolean")
		}
		o.IncludeThoughts = &b
	}
	var err error
	if o.Sampling, err = sdk.SamplingOf(raw); err != nil {
		return options{}, err
	}
	return o, nil
}
