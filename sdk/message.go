package sdk

import (
	"encoding/json"
	"strings"
)

// Role is the author of a message.
type Role string

// The roles of a conversation's messages.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	// RoleTool carries tool results back to the model. Providers whose wire
	// format puts results on a user turn (Anthropic) translate it.
	RoleTool Role = "tool"
)

// Message is one turn of a conversation.
type Message struct {
	Role  Role
	Parts []Part
}

// Part is one piece of a message: Text, Image, Document, Reasoning,
// ToolCall or ToolResult. The set is closed.
type Part interface{ isPart() }

// Cache is a prompt-cache breakpoint after the part (or tool spec) that
// carries it: the request up to and including it is a prefix the provider
// should cache and reuse (Anthropic cache_control), for as long as the
// value says. The zero value is no breakpoint. A provider that caches on
// its own (OpenAI, Gemini, DeepSeek) ignores it; one that takes
// breakpoints renders each exactly where it is.
type Cache string

// The breakpoints: none, the provider's default lifetime (Anthropic: five
// minutes, sent with no ttl), five minutes, one hour.
const (
	CacheNone    Cache = ""
	CacheDefault Cache = "default"
	Cache5m      Cache = "5m"
	Cache1h      Cache = "1h"
)

// Text is plain text.
type Text struct {
	Text  string
	Cache Cache // a cache breakpoint after this part
}

// Image is an inline image.
type Image struct {
	MediaType string // image/png, image/jpeg, ...
	Data      []byte // raw bytes; providers encode as their wire format needs
	URL       string // a remote image, when Data is empty
	Cache     Cache
}

// Document is a document given to the model whole: a PDF or plain text,
// inline or by URL (Anthropic document blocks). A provider whose API takes
// no documents refuses a request that carries one.
type Document struct {
	MediaType string // application/pdf or text/plain
	Data      []byte // the document's bytes (text as UTF-8), when URL is empty
	URL       string // a remote PDF, when Data is empty
	Title     string
	Context   string // what the document is, for the model; not quoted from
	Cache     Cache
}

// Reasoning is model reasoning ("thinking"). Signature and Redacted are
// opaque values that must be passed back to the provider unchanged.
type Reasoning struct {
	Text      string
	Signature string
	Redacted  string // encrypted reasoning (Anthropic redacted_thinking data)
	// Origin is the provider (block name) that produced this reasoning,
	// set by the host; "" when unknown (e.g. sent back by a client).
	// Signatures and encrypted reasoning only mean something to the
	// provider that made them, so the chain never sends a hop reasoning
	// with another provider's Origin. Plugins neither set nor read it.
	Origin string
}

// ToolCall is a model's request to call a tool, with complete JSON input.
type ToolCall struct {
	ID    string
	Name  string
	Input json.RawMessage
	Cache Cache
}

// ToolResult is the outcome of a tool call, sent back to the model.
type ToolResult struct {
	CallID  string
	Name    string // the tool's name, for wire formats that want it
	Content []Part // Text and Image parts
	IsError bool   // a failure the model should see; infrastructure failures are Go errors
	Cache   Cache
}

func (Text) isPart()       {}
func (Image) isPart()      {}
func (Document) isPart()   {}
func (Reasoning) isPart()  {}
func (ToolCall) isPart()   {}
func (ToolResult) isPart() {}

// SystemPrompt is the system parts of one string: none when s is empty.
func SystemPrompt(s string) []Text {
	if s == "" {
		return nil
	}
	return []Text{{Text: s}}
}

// SystemText joins system parts into one string, a blank line between
// parts, for wire formats that take a single system prompt.
func SystemText(system []Text) string {
	var b strings.Builder
	for i, t := range system {
		if i > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(t.Text)
	}
	return b.String()
}

// TextOf concatenates the Text parts of parts.
func TextOf(parts []Part) string {
	var s string
	for _, p := range parts {
		if t, ok := p.(Text); ok {
			s += t.Text
		}
	}
	return s
}
