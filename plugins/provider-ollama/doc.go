// Command axon-provider-ollama is the axon provider plugin for Ollama's
// native chat API (POST {base_url}/api/chat, NDJSON stream). It exists next
// to the OpenAI-compatible path (provider-openai on {base_url}/v1) for what
// only the native API carries: think levels, keep_alive and runtime options
// such as num_ctx.
//
// It translates canonical sdk requests to the wire, the wire's NDJSON lines
// (or a plain JSON reply) back to sdk events, and Ollama's errors to the sdk
// error taxonomy. It is written like a third-party plugin: it imports only
// the sdk and the standard library, never opens a socket (every request goes
// through the host's egress via sdk.HTTPClient), never holds or sets a
// credential, and never lets Ollama's error text leave the process.
package main
