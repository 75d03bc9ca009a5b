// Package api is axon's front door: the HTTP server that speaks the OpenAI
// Chat Completions and Anthropic Messages wire formats to clients.
//
// It turns each client request into one canonical *sdk.Request, resolves
// its model once to a Target of the Backend (in production a chain of the
// daemon), and writes the canonical event stream the target produces back in
// the client's own format, streamed or whole. Either format can be answered
// by a provider of either format: both sides meet only in the canonical
// types. Other APIs (the sessions API) are mounted inside it, behind the
// same token and counted by the same Observer.
//
// The package must never talk to a provider, hold a provider credential, run
// a client's tools, or import a vendor SDK, nor any other host package. It
// must never end a stream that broke after content was sent as if it had
// succeeded: unless the target returns success (which host/chain gives only
// after a finish event), a stream ends with an explicit error event of the
// client's format, and no "[DONE]" or message_stop. It must never hold a request body or an answer without a
// bound, or wait on a client without a deadline: every limit (limits.go,
// options.go) ends in an error of the client's format.
package api
