// Package usage measures what axon's turns used and cost. Every chain Run
// — the front door in either wire format, `axon ask`, a durable session's
// model step — becomes one immutable Fact: when, where from, which chain,
// provider, tier and model, how it ended, its attempts, its first-token and
// total latency, its token counts as the provider reported them (absent,
// never zero, when not reported), its cost and where the price came from,
// and what the same tokens would have cost at the reference price (cost
// avoided). Facts go to an embedded SQLite database, state_dir/usage.db,
// and every rollup (`axon stats`, GET /v1/stats) is a query over them.
//
// It must never block, slow or fail a request: a Recorder only puts a fact
// on a bounded queue, a goroutine of its own writes the queue in batched
// transactions, and a fact that does not fit or fails to write is dropped
// and counted. It never rewrites a fact (the schema refuses an UPDATE).
//
// Prices come from a built-in, dated table (table.go, one source per row),
// under each provider block's pricing {}; a local or subscription tier
// costs nothing per token; anything else is unknown and its cost absent.
//
// # For routing: prices and spend
//
// The routing strategies (lowest_cost) and budgets read prices and
// month-to-date spend through this small API:
//
//	prices, err := usage.NewPrices(cfg)         // once per configuration
//	p, basis := prices.Lookup("glm", "glm-4.6") // USD per million tokens per count; nil price: unknown
//	usd := p.Cost(sdk.Usage{InputTokens: &in, OutputTokens: &out}) // nil: cannot be priced, never 0 for that
//	tier := prices.Tier("glm")
//
//	spent, err := store.SpendSince(ctx, "claude", usage.MonthStart(time.Now())) // USD of the facts written since
//
// Lookup is a map read and a scan of the table, safe for concurrent use; it
// never touches the disk. SpendSince is one indexed SQLite query (a budget
// check on the request path should cache it for a few seconds); facts
// reach the store a moment after their turn ends.
package usage
