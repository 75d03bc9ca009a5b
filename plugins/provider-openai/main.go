// Command axon-provider-openai is the axon provider plugin for the OpenAI
// Chat Completions wire format (POST {base_url}/chat/completions). One
// binary serves OpenAI and every compatible server — Ollama, OpenRouter,
// Groq, Cerebras, NVIDIA, Mistral, GitHub Models, DeepSeek, xAI, Z.ai,
// Gemini's OpenAI endpoint — by configuration alone. With api =
// "responses" it speaks OpenAI's Responses API (POST {base_url}/responses)
// instead; the responses_*.go files hold that wire family.
//
// It translates canonical sdk requests to the wire and streamed replies back
// to sdk events, and maps every wire error to the sdk error taxonomy. It is
// written as a third party would write it: it imports only sdk and the
// standard library, reaches the network only through the host's egress, and
// never holds or sets a credential (the host injects it).
package main

import (
	"github.com/axonhq/axon/sdk/serve"
)

// version is stamped by the Makefile (-ldflags "-X main.version=…"); "dev" in a plain go build.
var version = "dev"

func main() {
	serve.Provider(&openai{})
}
