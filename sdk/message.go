package sdk

import "encoding/json"

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

// Part is one piece of a message: Text, Image, Reasoning, ToolCall or
// ToolResult. The set is closed.
type Part interface{ isPart() }

// Text is plain text.
type Text struct{ Text string }

// Image is an inline image.
type Image struct {
	MediaType string // image/png, image/jpeg, ...
	Data      []byte // raw bytes; providers encode as their wire format needs
	URL       string // a remote image, when Data is empty
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
}

// ToolResult is the outcome of a tool call, sent back to the model.
type ToolResult struct {
	CallID  string
	Name    string // the tool's name, for wire formats that want it
	Content []Part // Text and Image parts
	IsError bool   // a failure the model should see; infrastructure failures are Go errors
}

func (Text) isPart()       {}
func (Image) isPart()      {}
func (Reasoning) isPart()  {}
func (ToolCall) isPart()   {}
func (ToolResult) isPart() {}

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
