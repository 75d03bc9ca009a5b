// Package routing is axon's routing policy: for each request to a chain it
// decides the order in which the chain's providers are tried and which are
// left out, from the configuration, and writes the decision on one line of
// the trail. It implements chain.Router; retrying and falling back along
// the order stay the chain engine's.
//
// In the order it applies them:
//
//   - Gates leave a provider out: enabled = false; the paid gate (an api
//     tier without axon { billing { enabled = true } } and its own
//     enabled = true); a budget whose month's recorded spend is reached.
//     Each is a routing decision, never an upstream error.
//   - The chain's strategy orders the rest: ordered (as listed), rotate (the
//     starting provider moves one along after each unpaid success; the
//     cursor is a file in the state directory), lowest_latency (a moving
//     average of each provider's first-token latency, untried and stale
//     ones first), lowest_cost (the price of the request's expected
//     tokens, see EstimateTokens).
//   - The classifier gate, when the chain has one, puts the local tier
//     first for a request its local model rates trivial; any failure to
//     rate leaves the order as it is.
//   - Task fit puts the providers whose good_at holds the request's task
//     first; no fit is not an error.
//   - Paid providers that passed the gate go last, after every unpaid one:
//     a last resort, and a paid answer never moves a rotation.
//
// It must never send a request to a provider a gate left out, never call a
// provider but a chain's own local classifier, and never block a request
// on its own bookkeeping: the rotation cursor is written off the request
// path, and a budget's spend is read at most every few seconds.
package routing
