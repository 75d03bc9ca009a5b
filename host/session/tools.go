package session

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/axonhq/axon/sdk"
)

// Tool is a source of tools a run may be allowed: a tool plugin instance
// (*supervisor.Instance) or a host-side tool such as Recall.
type Tool interface {
	Tools(ctx context.Context) ([]sdk.ToolSpec, error)
	Call(ctx context.Context, inv sdk.Invocation) (sdk.ToolResult, error)
}

// freezeTools resolves the allowed tool blocks into the tools the model is
// offered. It starts their plugins if need be. Two blocks serving a tool of
// the same name are refused: the model could not tell them apart.
func (m *Manager) freezeTools(ctx context.Context, blocks []string) ([]FrozenTool, error) {
	var out []FrozenTool
	seen := map[string]string{} // tool name → block
	for _, b := range blocks {
		t, ok := m.opts.Tools[b]
		if !ok {
			return nil, invalidf("tools", "no tool block %q (configured: %s)", b, m.toolBlockList())
		}
		specs, err := t.Tools(ctx)
		if err != nil {
			return nil, fmt.Errorf("%w: tool block %q: %w", ErrUnavailable, b, err)
		}
		for _, s := range specs {
			if other, dup := seen[s.Name]; dup {
				return nil, invalidf("tools", "blocks %q and %q both serve a tool named %q", other, b, s.Name)
			}
			seen[s.Name] = b
			out = append(out, FrozenTool{Block: b, Name: s.Name, Description: s.Description, InputSchema: s.InputSchema, SideEffect: sideEffectOrUnsafe(s.SideEffect)})
		}
	}
	return out, nil
}

func (m *Manager) toolBlockList() string {
	names := make([]string, 0, len(m.opts.Tools))
	for n := range m.opts.Tools {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// normalizeBlocks drops blanks and duplicates, keeping the order given.
func normalizeBlocks(blocks []string) []string {
	var out []string
	for _, b := range blocks {
		b = strings.TrimSpace(b)
		if b != "" && !slices.Contains(out, b) {
			out = append(out, b)
		}
	}
	return out
}

// toolSpecs is what the model is offered.
func toolSpecs(tools []FrozenTool) []sdk.ToolSpec {
	if len(tools) == 0 {
		return nil
	}
	out := make([]sdk.ToolSpec, len(tools))
	for i, t := range tools {
		out[i] = sdk.ToolSpec{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema, SideEffect: t.SideEffect}
	}
	return out
}

// maxResultBytes bounds the text a tool result keeps in the WAL and sends
// to the model; the rest is cut with a note saying how much.
const maxResultBytes = 1 << 20

// capResult keeps a result's text parts within limit bytes in all, and
// drops images past it.
func capResult(parts []sdk.Part, limit int) []sdk.Part {
	out := make([]sdk.Part, 0, len(parts))
	left, cut := limit, 0
	for _, p := range parts {
		switch v := p.(type) {
		case sdk.Text:
			if len(v.Text) <= left {
				left -= len(v.Text)
				out = append(out, v)
				continue
			}
			keep := v.Text[:left]
			for len(keep) > 0 && !utf8.ValidString(keep) {
				keep = keep[:len(keep)-1]
			}
			cut += len(v.Text) - len(keep)
			left -= len(keep)
			if keep != "" {
				out = append(out, sdk.Text{Text: keep})
			}
		case sdk.Image:
			if len(v.Data) <= left {
				left -= len(v.Data)
				out = append(out, v)
				continue
			}
			cut += len(v.Data)
		default:
			out = append(out, p)
		}
	}
	if cut > 0 {
		out = append(out, sdk.Text{Text: fmt.Sprintf("\n[%d bytes of this result were cut: a result keeps at most %d]", cut, limit)})
	}
	return out
}
