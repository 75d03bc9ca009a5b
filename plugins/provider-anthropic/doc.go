// Command axon-provider-anthropic is the axon provider plugin for the
// Anthropic Messages API (POST {base_url}/v1/messages). It serves Claude and
// every Anthropic-compatible endpoint (Z.ai GLM, ...) by configuration alone.
//
// It translates canonical sdk requests to the wire format and the wire's
// streamed (or plain JSON) replies and errors back to sdk events and
// classified errors. It is written like a third-party plugin: it imports only
// the sdk and the standard library, never opens a socket (every request goes
// through the host's egress via sdk.HTTPClient), never holds or sets a
// credential (the host injects x-api-key), and never lets a raw vendor error
// body leave the process.
package main
