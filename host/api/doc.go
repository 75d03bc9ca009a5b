// Package api is axon's front door: the HTTP server that speaks the OpenAI
// Chat Completions and Anthropic Messages wire formats to clients.
//
// It turns each client request into one canonical *sdk.Request, hands it to
// a Backend (in production the chain engine), and writes the canonical event
// stream the backend produces back in the client's own format, streamed or
// whole. Either format can be answered by a provider of either format: both
// sides meet only in the canonical types.
//
// The package must never talk to a provider, hold a provider credential, run
// a client's tools, or import a vendor SDK. It must never end a stream that
// broke after content was sent as if it had succeeded: such a stream ends
// with an explicit error event of the client's format, and no "[DONE]" or
// message_stop. It must never hold a request body or an answer without a
// bound, or wait on a client without a deadline: every limit (limits.go,
// options.go) ends in an error of the client's format.
package api
