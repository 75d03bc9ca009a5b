package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/axonhq/axon/sdk"
)

// defaultBaseURL is a local Ollama server's root: the native API lives at
// /api, the OpenAI-compatible one at /v1.
const defaultBaseURL = "http://127.0.0.1:11434"

// config is the plugin-owned part of a provider block, as decoded.
type config struct {
	BaseURL   string            `json:"base_url"`
	Model     string            `json:"model"`
	MaxTokens int               `json:"max_tokens"`
	Think     string            `json:"think"`
	KeepAlive string            `json:"keep_alive"`
	Options   map[string]string `json:"options"`
	Headers   map[string]string `json:"headers"`
	Strict    bool              `json:"strict_stream"`
}

// settings is config checked and turned into wire values once, at
// Configure, so a mistake is reported before any request.
type settings struct {
	baseURL   string
	model     string
	maxTokens int                        // 0: leave num_predict to the server
	think     json.RawMessage            // nil: the model's default
	keepAlive json.RawMessage            // nil: the server's default
	options   map[string]json.RawMessage // runtime options: numbers and booleans
	header    http.Header                // the headers attribute, checked
	strict    bool                       // strict_stream
}

// schema declares the attributes of config to the host.
func schema() sdk.Schema {
	return sdk.Schema{Attributes: []sdk.Attribute{
		sdk.BaseURLAttribute(defaultBaseURL,
			"Ollama server root (no /v1); requests go to {base_url}/api/chat."),
		sdk.ModelAttribute("qwen3:4b"),
		sdk.MaxTokensAttribute(0,
			"options.num_predict when a request sets no limit; 0 leaves it to the model."),
		{Name: "think", Type: "string",
			Description: "think: true or false, or a level (low, medium, high) for models that take one (gpt-oss). Unset: the model's default."},
		{Name: "keep_alive", Type: "string",
			Description: "How long the model stays loaded after a request: a duration (\"10m\", \"1h\") or seconds (\"0\" unloads at once, \"-1\" keeps it loaded)."},
		{Name: "options", Type: "map(string)",
			Description: "Runtime options sent as options, each value a number or true/false, e.g. { num_ctx = 8192, top_k = 20 }. num_predict and stop have their own knobs."},
		sdk.HeadersAttribute(""),
		sdk.StrictStreamAttribute(),
	}}
}

// parseConfig decodes and validates the plugin-owned values.
func parseConfig(cfg sdk.Config) (settings, error) {
	c := config{BaseURL: defaultBaseURL}
	if err := cfg.Decode(&c); err != nil {
		return settings{}, err
	}
	s := settings{model: c.Model, maxTokens: c.MaxTokens, strict: c.Strict}
	var err error
	if s.baseURL, err = parseBaseURL(c.BaseURL); err != nil {
		return settings{}, err
	}
	if c.MaxTokens < 0 {
		return settings{}, sdk.Permanentf("max_tokens must be 0 (server default) or positive, got %d", c.MaxTokens)
	}
	if s.think, err = parseThink(c.Think); err != nil {
		return settings{}, sdk.Permanentf("think: %v", err)
	}
	if s.keepAlive, err = parseKeepAlive(c.KeepAlive); err != nil {
		return settings{}, sdk.Permanentf("keep_alive: %v", err)
	}
	s.options = make(map[string]json.RawMessage, len(c.Options))
	for k, v := range c.Options {
		raw, err := optionValue(k, json.RawMessage(v))
		if err != nil {
			return settings{}, sdk.Permanentf("options: %v", err)
		}
		s.options[k] = raw
	}
	if s.header, err = sdk.ExtraHeaders(c.Headers); err != nil {
		return settings{}, err
	}
	return s, nil
}

func parseBaseURL(raw string) (string, error) {
	trimmed, err := sdk.ParseBaseURL(raw)
	if err != nil {
		return "", err
	}
	if strings.HasSuffix(trimmed, "/v1") {
		// The most likely mistake: the ollama preset's URL, which is the
		// OpenAI-compatible root. /v1/api/chat would answer 404.
		return "", sdk.Permanentf("base_url %q ends in /v1, Ollama's OpenAI-compatible root: this plugin speaks the native API at the server root (%s)", raw, strings.TrimSuffix(trimmed, "/v1"))
	}
	return trimmed, nil
}

// thinkLevels are the string values of think; models that take levels
// (gpt-oss) silently fall back to their default on any other string, so an
// unknown one is refused here instead.
var thinkLevels = map[string]bool{"low": true, "medium": true, "high": true}

// parseThink turns the think attribute into its wire value: a JSON boolean
// for true/false, a JSON string for a level, nil when unset.
func parseThink(s string) (json.RawMessage, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	switch {
	case s == "":
		return nil, nil
	case s == "true", s == "false":
		return json.RawMessage(s), nil
	case thinkLevels[s]:
		return jsonString(s), nil
	}
	return nil, fmt.Errorf("%q: want true, false, low, medium or high", s)
}

// parseKeepAlive turns keep_alive into its wire value: a number of seconds
// stays a number (Ollama reads a bare string like "-1" as a malformed
// duration), a duration stays a string.
func parseKeepAlive(s string) (json.RawMessage, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return json.Marshal(f)
	}
	if _, err := time.ParseDuration(s); err != nil {
		return nil, fmt.Errorf("%q: want a duration such as 10m or a number of seconds", s)
	}
	return jsonString(s), nil
}

var optionName = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)

// ownKnobs are runtime options that a request field or an attribute sets;
// setting them through options too would make two sources for one value.
var ownKnobs = map[string]string{
	"num_predict": "max_tokens",
	"stop":        "the request's stop sequences",
}

// optionValue checks one runtime option: every Ollama option except stop is
// a number or a boolean. An HCL map(string) delivers "8192" and "true", both
// valid JSON literals.
func optionValue(name string, v json.RawMessage) (json.RawMessage, error) {
	if !optionName.MatchString(name) {
		return nil, fmt.Errorf("%q is not an option name", name)
	}
	if knob, ok := ownKnobs[name]; ok {
		return nil, fmt.Errorf("%q is set through %s", name, knob)
	}
	v = bytes.TrimSpace(v)
	var x any
	if err := json.Unmarshal(v, &x); err != nil {
		return nil, fmt.Errorf("%s = %q: want a number or true/false", name, v)
	}
	switch x.(type) {
	case float64, bool:
		return v, nil
	}
	return nil, fmt.Errorf("%s = %s: want a number or true/false", name, v)
}

// requestOptions are the per-request knobs read from sdk.Request.Options.
// Options this plugin does not know are ignored: one request may travel a
// chain of different providers.
type requestOptions struct {
	think     json.RawMessage
	keepAlive json.RawMessage
	options   map[string]json.RawMessage
}

func parseRequestOptions(raw map[string]json.RawMessage) (requestOptions, error) {
	var o requestOptions
	if v, ok := raw["think"]; ok {
		var b bool
		var s string
		switch {
		case json.Unmarshal(v, &b) == nil:
			o.think = json.RawMessage(strconv.FormatBool(b))
		case json.Unmarshal(v, &s) == nil && thinkLevels[s]:
			o.think = jsonString(s)
		default:
			return o, sdk.Permanentf("option think: want true, false, \"low\", \"medium\" or \"high\"")
		}
	}
	if v, ok := raw["keep_alive"]; ok {
		var s string
		var f float64
		switch {
		case json.Unmarshal(v, &f) == nil:
			o.keepAlive, _ = json.Marshal(f)
		case json.Unmarshal(v, &s) == nil:
			ka, err := parseKeepAlive(s)
			if err != nil || ka == nil {
				return o, sdk.Permanentf("option keep_alive: want a duration or a number of seconds")
			}
			o.keepAlive = ka
		default:
			return o, sdk.Permanentf("option keep_alive: want a duration or a number of seconds")
		}
	}
	if v, ok := raw["options"]; ok {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(v, &m); err != nil {
			return o, sdk.Permanentf("option options: want a JSON object")
		}
		o.options = make(map[string]json.RawMessage, len(m))
		for k, val := range m {
			checked, err := optionValue(k, val)
			if err != nil {
				return o, sdk.Permanentf("option options: %v", err)
			}
			o.options[k] = checked
		}
	}
	return o, nil
}

func jsonString(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}
