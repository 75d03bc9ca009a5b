package routing

import (
	"slices"

	"github.com/axonhq/axon/sdk"
)

// What EstimateTokens counts.
const (
	// BytesPerToken is the estimate's exchange rate: about four bytes of
	// English text or JSON per token in the common tokenizers.
	BytesPerToken = 4
	// ImageTokens is what an image counts: vendors price an image by its
	// pixels, which the request does not say without decoding it.
	ImageTokens = 1000
	// MessageTokens is each message's framing (role, separators).
	MessageTokens = 4
	// DefaultOutputTokens is the output expected of a request that sets no
	// max_tokens.
	DefaultOutputTokens = 1024
)

// EstimateTokens is what lowest_cost prices a request at, before any
// provider has seen it: input from the request's size — a token per
// BytesPerToken bytes of system prompt, text, reasoning, tool calls, tool
// results and tool definitions (name, description, schema), plus
// ImageTokens per image and MessageTokens per message — and output its
// max_tokens, else DefaultOutputTokens. It is an estimate for ordering
// providers, never a count: usage facts keep what providers report.
func EstimateTokens(req *sdk.Request) (input, output int64) {
	if req == nil {
		return 0, DefaultOutputTokens
	}
	var bytes, images int64
	for _, t := range req.System {
		bytes += int64(len(t.Text))
	}
	for _, t := range req.Tools {
		bytes += int64(len(t.Name) + len(t.Description) + len(t.InputSchema))
	}
	var parts func([]sdk.Part)
	parts = func(ps []sdk.Part) {
		for _, p := range ps {
			switch p := p.(type) {
			case sdk.Text:
				bytes += int64(len(p.Text))
			case sdk.Reasoning:
				bytes += int64(len(p.Text))
			case sdk.ToolCall:
				bytes += int64(len(p.Name) + len(p.Input))
			case sdk.ToolResult:
				parts(p.Content)
			case sdk.Image:
				images++
			}
		}
	}
	for _, m := range req.Messages {
		parts(m.Parts)
	}
	input = (bytes+BytesPerToken-1)/BytesPerToken + images*ImageTokens + int64(len(req.Messages))*MessageTokens
	output = int64(req.MaxTokens)
	if output <= 0 {
		output = DefaultOutputTokens
	}
	return input, output
}

// byCost orders idx by the price of in input and out output tokens on each
// hop, cheapest first; a hop whose price is unknown goes after every
// priced one. Ties keep their order.
func (r *Router) byCost(idx []int, hops []Hop, in, out int64) []int {
	cost := make(map[int]float64, len(idx))
	for _, i := range idx {
		cost[i] = -1
		if r.prices == nil {
			continue
		}
		p, _ := r.prices.Lookup(hops[i].Name, hops[i].Model)
		if usd := p.Cost(sdk.Usage{InputTokens: &in, OutputTokens: &out}); usd != nil {
			cost[i] = *usd
		}
	}
	sorted := slices.Clone(idx)
	slices.SortStableFunc(sorted, func(a, b int) int {
		ca, cb := cost[a], cost[b]
		switch {
		case ca == cb:
			return 0
		case ca < 0:
			return 1
		case cb < 0:
			return -1
		case ca < cb:
			return -1
		}
		return 1
	})
	return sorted
}
