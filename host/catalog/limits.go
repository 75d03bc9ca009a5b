package catalog

import (
	"regexp"
	"strings"
)

// limit is one model's limits as its vendor documents them. Limits are
// facts of the model, not of who bills it, so a row matches the model
// whichever provider block serves it (a router's "anthropic/claude-…"
// included).
type limit struct {
	model        string
	context, out int64
	tools        bool
}

// limits is the built-in limit table: the models of host/usage's price
// table whose vendors publish their limits. Each group names the page it
// was read from; a provider block's context_window, or its plugin's
// answer, wins over a row.
var limits = []limit{
	// docs.anthropic.com/en/docs/about-claude/models/overview, as published in November 2025
	// (the standard window; the 1M-token window of Sonnet is a beta header)
	{"claude-opus-4-5", 200_000, 64_000, true},
	{"claude-opus-4-1", 200_000, 32_000, true},
	{"claude-opus-4", 200_000, 32_000, true},
	{"claude-sonnet-4-5", 200_000, 64_000, true},
	{"claude-sonnet-4", 200_000, 64_000, true},
	{"claude-3-7-sonnet", 200_000, 64_000, true},
	{"claude-haiku-4-5", 200_000, 64_000, true},
	{"claude-3-5-haiku", 200_000, 8_192, true},
	// platform.openai.com/docs/models, as published in November 2025
	{"gpt-5.1", 400_000, 128_000, true},
	{"gpt-5", 400_000, 128_000, true},
	{"gpt-5-codex", 400_000, 128_000, true},
	{"gpt-5-mini", 400_000, 128_000, true},
	{"gpt-5-nano", 400_000, 128_000, true},
	{"gpt-4.1", 1_047_576, 32_768, true},
	{"gpt-4.1-mini", 1_047_576, 32_768, true},
	{"gpt-4.1-nano", 1_047_576, 32_768, true},
	{"gpt-4o", 128_000, 16_384, true},
	{"gpt-4o-mini", 128_000, 16_384, true},
	{"o3", 200_000, 100_000, true},
	{"o4-mini", 200_000, 100_000, true},
	// ai.google.dev/gemini-api/docs/models, as published in November 2025
	{"gemini-2.5-pro", 1_048_576, 65_536, true},
	{"gemini-2.5-flash", 1_048_576, 65_536, true},
	{"gemini-flash-latest", 1_048_576, 65_536, true},
	{"gemini-2.5-flash-lite", 1_048_576, 65_536, true},
	{"gemini-flash-lite-latest", 1_048_576, 65_536, true},
	{"gemini-2.0-flash", 1_048_576, 8_192, true},
}

// findLimit is the row of model: the row's name itself, or followed by a
// date or "-latest" ("claude-sonnet-4-5-20250929"), never a longer name
// ("gpt-5-mini" is not "gpt-5"). "." and "-" are the same, case is
// ignored, and a "models/" or "VENDOR/" prefix is dropped. host/usage
// matches its price rows the same way.
func findLimit(model string) (limit, bool) {
	m := normModel(model)
	if _, rest, ok := strings.Cut(m, "/"); ok {
		m = rest
	}
	best, bestLen := limit{}, 0
	for _, r := range limits {
		n := normModel(r.model)
		if rest, ok := strings.CutPrefix(m, n); ok && len(n) > bestLen && versionSuffix.MatchString(rest) {
			best, bestLen = r, len(n)
		}
	}
	return best, bestLen > 0
}

var versionSuffix = regexp.MustCompile(`^(-latest|-[0-9]{4,}(-[0-9]{2}){0,2})?$`)

func normModel(m string) string {
	m = strings.ToLower(strings.TrimSpace(m))
	m = strings.TrimPrefix(m, "models/")
	return strings.ReplaceAll(m, ".", "-")
}
