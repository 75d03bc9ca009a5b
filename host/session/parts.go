package session

import (
	"encoding/json"
	"fmt"

	"github.com/axonhq/axon/sdk"
)

// partJSON is the stored form of one sdk.Part: a tagged union.
type partJSON struct {
	Type      string          `json:"type"` // text, image, reasoning, tool_call, tool_result
	Text      string          `json:"text,omitempty"`
	MediaType string          `json:"media_type,omitempty"`
	Data      []byte          `json:"data,omitempty"`
	URL       string          `json:"url,omitempty"`
	Signature string          `json:"signature,omitempty"`
	Redacted  string          `json:"redacted,omitempty"`
	Origin    string          `json:"origin,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	CallID    string          `json:"call_id,omitempty"`
	Content   []partJSON      `json:"content,omitempty"`
	IsError   bool            `json:"is_error,omitempty"`
}

func encodeParts(parts []sdk.Part) []partJSON {
	out := make([]partJSON, 0, len(parts))
	for _, p := range parts {
		switch v := p.(type) {
		case sdk.Text:
			out = append(out, partJSON{Type: "text", Text: v.Text})
		case sdk.Image:
			out = append(out, partJSON{Type: "image", MediaType: v.MediaType, Data: v.Data, URL: v.URL})
		case sdk.Reasoning:
			out = append(out, partJSON{Type: "reasoning", Text: v.Text, Signature: v.Signature, Redacted: v.Redacted, Origin: v.Origin})
		case sdk.ToolCall:
			out = append(out, partJSON{Type: "tool_call", ID: v.ID, Name: v.Name, Input: v.Input})
		case sdk.ToolResult:
			out = append(out, partJSON{Type: "tool_result", CallID: v.CallID, Name: v.Name, Content: encodeParts(v.Content), IsError: v.IsError})
		}
	}
	return out
}

func decodeParts(in []partJSON) ([]sdk.Part, error) {
	out := make([]sdk.Part, 0, len(in))
	for _, p := range in {
		switch p.Type {
		case "text":
			out = append(out, sdk.Text{Text: p.Text})
		case "image":
			out = append(out, sdk.Image{MediaType: p.MediaType, Data: p.Data, URL: p.URL})
		case "reasoning":
			out = append(out, sdk.Reasoning{Text: p.Text, Signature: p.Signature, Redacted: p.Redacted, Origin: p.Origin})
		case "tool_call":
			out = append(out, sdk.ToolCall{ID: p.ID, Name: p.Name, Input: p.Input})
		case "tool_result":
			content, err := decodeParts(p.Content)
			if err != nil {
				return nil, err
			}
			out = append(out, sdk.ToolResult{CallID: p.CallID, Name: p.Name, Content: content, IsError: p.IsError})
		default:
			return nil, fmt.Errorf("session: unknown part type %q", p.Type)
		}
	}
	return out, nil
}
