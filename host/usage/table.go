package usage

// row is one model's list price, USD per million tokens. none marks a
// count the vendor prices no way of its own (OpenAI and Google never
// report cache writes; DeepSeek's cache misses are plain input).
type row struct {
	vendor, model                    string
	input, output, cacheRead, cacheW float64
}

const none = -1

func (r row) price() Price {
	p := func(x float64) *float64 {
		if x < 0 {
			return nil
		}
		return &x
	}
	return Price{p(r.input), p(r.output), p(r.cacheRead), p(r.cacheW)}
}

// table is the built-in price table: the common models of every preset
// that bills per token, at the standard (not batch, not long-prompt) rate.
// Each row names the page it was read from and when; prices change, and a
// provider block's pricing {} wins over its row. Cache writes are the
// 5-minute rate where a vendor has two.
var table = []row{
	{"anthropic", "claude-opus-4-5", 5, 25, 0.50, 6.25},               // anthropic.com/pricing (docs.anthropic.com/en/docs/about-claude/pricing), as published on November 2025
	{"anthropic", "claude-opus-4-1", 15, 75, 1.50, 18.75},             // anthropic.com/pricing, as published on August 2025
	{"anthropic", "claude-opus-4", 15, 75, 1.50, 18.75},               // anthropic.com/pricing, as published on May 2025
	{"anthropic", "claude-sonnet-4-5", 3, 15, 0.30, 3.75},             // anthropic.com/pricing, as published on September 2025 (prompts up to 200k tokens)
	{"anthropic", "claude-sonnet-4", 3, 15, 0.30, 3.75},               // anthropic.com/pricing, as published on May 2025 (prompts up to 200k tokens)
	{"anthropic", "claude-3-7-sonnet", 3, 15, 0.30, 3.75},             // anthropic.com/pricing, as published on February 2025
	{"anthropic", "claude-haiku-4-5", 1, 5, 0.10, 1.25},               // anthropic.com/pricing, as published on October 2025
	{"anthropic", "claude-3-5-haiku", 0.80, 4, 0.08, 1},               // anthropic.com/pricing, as published on November 2024
	{"openai", "gpt-5.1", 1.25, 10, 0.125, none},                      // openai.com/api/pricing, as published on November 2025
	{"openai", "gpt-5", 1.25, 10, 0.125, none},                        // openai.com/api/pricing, as published on August 2025
	{"openai", "gpt-5-codex", 1.25, 10, 0.125, none},                  // openai.com/api/pricing, as published on September 2025
	{"openai", "gpt-5-mini", 0.25, 2, 0.025, none},                    // openai.com/api/pricing, as published on August 2025
	{"openai", "gpt-5-nano", 0.05, 0.40, 0.005, none},                 // openai.com/api/pricing, as published on August 2025
	{"openai", "gpt-4.1", 2, 8, 0.50, none},                           // openai.com/api/pricing, as published on April 2025
	{"openai", "gpt-4.1-mini", 0.40, 1.60, 0.10, none},                // openai.com/api/pricing, as published on April 2025
	{"openai", "gpt-4.1-nano", 0.10, 0.40, 0.025, none},               // openai.com/api/pricing, as published on April 2025
	{"openai", "gpt-4o", 2.50, 10, 1.25, none},                        // openai.com/api/pricing, as published on October 2024
	{"openai", "gpt-4o-mini", 0.15, 0.60, 0.075, none},                // openai.com/api/pricing, as published on July 2024
	{"openai", "o3", 2, 8, 0.50, none},                                // openai.com/api/pricing, as published on June 2025 (after that month's price cut)
	{"openai", "o4-mini", 1.10, 4.40, 0.275, none},                    // openai.com/api/pricing, as published on April 2025
	{"google", "gemini-2.5-pro", 1.25, 10, 0.31, none},                // ai.google.dev/gemini-api/docs/pricing, as published on June 2025 (prompts up to 200k tokens)
	{"google", "gemini-2.5-flash", 0.30, 2.50, 0.075, none},           // ai.google.dev/gemini-api/docs/pricing, as published on June 2025 (text input)
	{"google", "gemini-flash-latest", 0.30, 2.50, 0.075, none},        // ai.google.dev/gemini-api/docs/models, as published on September 2025: the alias of a Gemini 2.5 Flash, priced as it
	{"google", "gemini-2.5-flash-lite", 0.10, 0.40, 0.025, none},      // ai.google.dev/gemini-api/docs/pricing, as published on July 2025 (text input)
	{"google", "gemini-flash-lite-latest", 0.10, 0.40, 0.025, none},   // ai.google.dev/gemini-api/docs/models, as published on September 2025: the alias of a Gemini 2.5 Flash-Lite
	{"google", "gemini-2.0-flash", 0.10, 0.40, 0.025, none},           // ai.google.dev/gemini-api/docs/pricing, as published on February 2025 (text input)
	{"zai", "glm-4.7", 0.60, 2.20, 0.11, none},                        // docs.z.ai/guides/overview/pricing, as published on December 2025 (cache storage free)
	{"zai", "glm-4.6", 0.60, 2.20, 0.11, none},                        // docs.z.ai/guides/overview/pricing, as published on October 2025 (cache storage free)
	{"zai", "glm-4.5", 0.60, 2.20, 0.11, none},                        // docs.z.ai/guides/overview/pricing, as published on August 2025
	{"zai", "glm-4.5-air", 0.20, 1.10, 0.03, none},                    // docs.z.ai/guides/overview/pricing, as published on August 2025
	{"deepseek", "deepseek-chat", 0.28, 0.42, 0.028, none},            // api-docs.deepseek.com/quick_start/pricing, as published on September 2025 (DeepSeek-V3.2-Exp; input is the cache-miss rate)
	{"deepseek", "deepseek-reasoner", 0.28, 0.42, 0.028, none},        // api-docs.deepseek.com/quick_start/pricing, as published on September 2025 (DeepSeek-V3.2-Exp thinking mode)
	{"mistral", "mistral-large", 2, 6, none, none},                    // mistral.ai/pricing, as published on July 2025
	{"mistral", "mistral-medium", 0.40, 2, none, none},                // mistral.ai/pricing, as published on August 2025 (Mistral Medium 3.1)
	{"mistral", "mistral-small", 0.10, 0.30, none, none},              // mistral.ai/pricing, as published on June 2025 (Mistral Small 3.2)
	{"mistral", "codestral", 0.30, 0.90, none, none},                  // mistral.ai/pricing, as published on July 2025
	{"mistral", "magistral-medium", 2, 5, none, none},                 // mistral.ai/pricing, as published on June 2025
	{"xai", "grok-4", 3, 15, 0.75, none},                              // docs.x.ai/docs/models, as published on July 2025
	{"xai", "grok-4-fast-reasoning", 0.20, 0.50, 0.05, none},          // docs.x.ai/docs/models, as published on September 2025 (prompts up to 128k tokens)
	{"xai", "grok-4-fast-non-reasoning", 0.20, 0.50, 0.05, none},      // docs.x.ai/docs/models, as published on September 2025 (prompts up to 128k tokens)
	{"xai", "grok-code-fast-1", 0.20, 1.50, 0.02, none},               // docs.x.ai/docs/models, as published on August 2025
	{"xai", "grok-3-mini", 0.30, 0.50, 0.075, none},                   // docs.x.ai/docs/models, as published on May 2025
	{"groq", "llama-3.3-70b-versatile", 0.59, 0.79, none, none},       // groq.com/pricing, as published on August 2025
	{"groq", "llama-3.1-8b-instant", 0.05, 0.08, none, none},          // groq.com/pricing, as published on August 2025
	{"groq", "openai/gpt-oss-120b", 0.15, 0.75, none, none},           // groq.com/pricing, as published on August 2025
	{"groq", "openai/gpt-oss-20b", 0.10, 0.50, none, none},            // groq.com/pricing, as published on August 2025
	{"groq", "qwen/qwen3-32b", 0.29, 0.59, none, none},                // groq.com/pricing, as published on August 2025
	{"groq", "moonshotai/kimi-k2-instruct", 1, 3, none, none},         // groq.com/pricing, as published on August 2025
	{"cerebras", "llama-3.3-70b", 0.85, 1.20, none, none},             // cerebras.ai/pricing, as published on August 2025
	{"cerebras", "llama3.1-8b", 0.10, 0.10, none, none},               // cerebras.ai/pricing, as published on August 2025
	{"cerebras", "gpt-oss-120b", 0.25, 0.69, none, none},              // cerebras.ai/pricing, as published on August 2025
	{"cerebras", "qwen-3-32b", 0.40, 0.80, none, none},                // cerebras.ai/pricing, as published on August 2025
	{"cerebras", "qwen-3-235b-a22b-instruct", 0.60, 1.20, none, none}, // cerebras.ai/pricing, as published on August 2025
}
