package main

import (
	"encoding/json"
	"fmt"

	"github.com/axonhq/axon/sdk"
)

// Defaults for the plugin-owned attributes, declared in the schema and
// applied again in parseConfig.
const (
	defaultMaxBytes = 256 << 10
	maxMaxBytes     = 16 << 20 // a tool result is model context, not a download
)

// defaultUserAgent names this build: a function, not a constant, because
// version is stamped at link time.
func defaultUserAgent() string { return "axon-tool-fetch/" + version }

// config is the plugin-owned part of a tool block.
type config struct {
	Allow     []string `json:"allow"`
	MaxBytes  int      `json:"max_bytes"`
	UserAgent string   `json:"user_agent"`
}

// schema declares the attributes above to the host.
func schema() sdk.Schema {
	return sdk.Schema{Attributes: []sdk.Attribute{
		{Name: "allow", Type: "list(string)", Required: true,
			Description: `Origins the model may fetch: "https://example.com", "example.com" (https), "localhost:8080" (https), "http://10.0.0.5:8080", or "*.example.com" (any subdomain). The host's egress must allow them too.`},
		{Name: "max_bytes", Type: "number", Default: json.RawMessage(fmt.Sprint(defaultMaxBytes)),
			Description: "Most bytes read from a response; a longer one is cut and the result says so."},
		{Name: "user_agent", Type: "string", Default: jsonString(defaultUserAgent()),
			Description: "User-Agent header sent with every request."},
	}}
}

// settings is the validated configuration.
type settings struct {
	allow     allowList
	maxBytes  int
	userAgent string
}

func parseConfig(cfg sdk.Config) (settings, error) {
	c := config{MaxBytes: defaultMaxBytes, UserAgent: defaultUserAgent()}
	if err := cfg.Decode(&c); err != nil {
		return settings{}, err
	}
	if len(c.Allow) == 0 {
		return settings{}, sdk.Permanentf("allow: list at least one origin the tool may fetch")
	}
	allow, err := parseAllowList(c.Allow)
	if err != nil {
		return settings{}, sdk.Permanentf("allow: %v", err)
	}
	if c.MaxBytes <= 0 || c.MaxBytes > maxMaxBytes {
		return settings{}, sdk.Permanentf("max_bytes must be between 1 and %d, got %d", maxMaxBytes, c.MaxBytes)
	}
	if c.UserAgent == "" {
		c.UserAgent = defaultUserAgent()
	}
	return settings{allow: allow, maxBytes: c.MaxBytes, userAgent: c.UserAgent}, nil
}

func jsonString(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}
