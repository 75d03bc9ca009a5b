// Command axon-provider-gemini is the axon provider plugin for Google's
// native Gemini API (POST {base_url}/v1beta/models/{model}:streamGenerateContent?alt=sse).
//
// It translates canonical sdk requests to generateContent bodies, and the
// streamed (or plain JSON) replies and Google error bodies back to sdk events
// and classified errors. It is written like a third-party plugin: it imports
// only the sdk and the standard library, never opens a socket (every request
// goes through the host's egress via sdk.HTTPClient), never holds or sets a
// credential (the host injects x-goog-api-key), and never lets a raw vendor
// error body leave the process.
//
// Gemini has no field for a call's thought signature in the canonical
// sdk.ToolCall, so the plugin carries it as an sdk.Reasoning part with only a
// Signature: sent just before the call it belongs to, and on the way back
// attached to the next function call of the same assistant message (see
// request.go, attachSignatures).
package main
