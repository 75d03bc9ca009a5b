package main

import (
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/axonhq/axon/sdk"
)

// maxResult bounds the text and image bytes of one result; the host cuts
// again at its own limit.
const maxResult = 1 << 20

// toResult turns an MCP tool result into the host's: text and images as
// they are, other content named in a line of text, structured content as
// JSON when there is nothing else. isError stays a result the model sees.
func toResult(inv sdk.Invocation, res *mcp.CallToolResult) sdk.ToolResult {
	out := sdk.ToolResult{CallID: inv.CallID, Name: inv.Name, IsError: res.IsError}
	left := maxResult
	add := func(p sdk.Part, size int) {
		if size > left {
			if left > 0 {
				out.Content = append(out.Content, sdk.Text{Text: fmt.Sprintf("\n[the MCP result was cut: a result keeps at most %d bytes]", maxResult)})
			}
			left = -1
			return
		}
		left -= size
		out.Content = append(out.Content, p)
	}
	text := func(s string) { add(sdk.Text{Text: s}, len(s)) }
	for _, c := range res.Content {
		switch v := c.(type) {
		case *mcp.TextContent:
			text(v.Text)
		case *mcp.ImageContent:
			add(sdk.Image{MediaType: v.MIMEType, Data: v.Data}, len(v.Data))
		case *mcp.AudioContent:
			text(fmt.Sprintf("[audio %s, %d bytes, not shown]", clean(v.MIMEType, 100), len(v.Data)))
		case *mcp.ResourceLink:
			text(fmt.Sprintf("[resource %s %s]", clean(v.URI, 2048), clean(v.Name, 200)))
		case *mcp.EmbeddedResource:
			switch r := v.Resource; {
			case r == nil:
			case r.Text != "":
				text(r.Text)
			default:
				text(fmt.Sprintf("[resource %s, %d bytes, not shown]", clean(r.URI, 2048), len(r.Blob)))
			}
		}
	}
	if len(out.Content) == 0 && res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			text(string(b))
		}
	}
	if len(out.Content) == 0 {
		out.Content = []sdk.Part{sdk.Text{Text: ""}}
	}
	return out
}
