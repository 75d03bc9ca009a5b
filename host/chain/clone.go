package chain

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"

	"github.com/axonhq/axon/sdk"
)

// cloneRequest returns a deep copy of r for one attempt, so nothing an
// attempt does to its request reaches the caller or a later attempt. The
// copy's Model is model: a model name belongs to one provider and never
// carries across a chain.
func cloneRequest(r *sdk.Request, model string) *sdk.Request {
	c := *r
	c.Model = model
	c.Messages = cloneMessages(r.Messages)
	if r.Tools != nil {
		c.Tools = make([]sdk.ToolSpec, len(r.Tools))
		for i, t := range r.Tools {
			t.InputSchema = cloneRaw(t.InputSchema)
			c.Tools[i] = t
		}
	}
	if r.Temperature != nil {
		t := *r.Temperature
		c.Temperature = &t
	}
	c.StopSequences = slices.Clone(r.StopSequences)
	c.System = slices.Clone(r.System)
	if r.Output != nil {
		o := *r.Output
		o.Schema = cloneRaw(o.Schema)
		c.Output = &o
	}
	if r.Options != nil {
		c.Options = maps.Clone(r.Options)
		for k, v := range c.Options {
			c.Options[k] = cloneRaw(v)
		}
	}
	return &c
}

// cloneMessages copies ms with all top-level parts in one allocation: a
// long conversation costs two allocations, not one per message.
func cloneMessages(ms []sdk.Message) []sdk.Message {
	if ms == nil {
		return nil
	}
	total := 0
	for _, m := range ms {
		total += len(m.Parts)
	}
	slab := make([]sdk.Part, total)
	c := make([]sdk.Message, len(ms))
	for i, m := range ms {
		c[i] = m
		if m.Parts == nil {
			continue
		}
		n := len(m.Parts)
		c[i].Parts = slab[:n:n] // capped: an append by the provider cannot reach the next message
		slab = slab[n:]
		for j, p := range m.Parts {
			c[i].Parts[j] = clonePart(p)
		}
	}
	return c
}

func cloneParts(ps []sdk.Part) []sdk.Part {
	if ps == nil {
		return nil
	}
	c := make([]sdk.Part, len(ps))
	for i, p := range ps {
		c[i] = clonePart(p)
	}
	return c
}

// clonePart copies each Part type sdk defines, as a value or a pointer.
func clonePart(p sdk.Part) sdk.Part {
	switch v := p.(type) {
	case sdk.Text, sdk.Reasoning:
		return p // no references inside, and a boxed value cannot be changed in place
	case sdk.Image:
		v.Data = bytes.Clone(v.Data)
		return v
	case sdk.Document:
		v.Data = bytes.Clone(v.Data)
		return v
	case sdk.ToolCall:
		v.Input = cloneRaw(v.Input)
		return v
	case sdk.ToolResult:
		v.Content = cloneParts(v.Content)
		return v
	case *sdk.Text:
		return clonePtr(v, func(x sdk.Text) sdk.Text { return x })
	case *sdk.Reasoning:
		return clonePtr(v, func(x sdk.Reasoning) sdk.Reasoning { return x })
	case *sdk.Image:
		return clonePtr(v, func(x sdk.Image) sdk.Image { return clonePart(x).(sdk.Image) })
	case *sdk.Document:
		return clonePtr(v, func(x sdk.Document) sdk.Document { return clonePart(x).(sdk.Document) })
	case *sdk.ToolCall:
		return clonePtr(v, func(x sdk.ToolCall) sdk.ToolCall { return clonePart(x).(sdk.ToolCall) })
	case *sdk.ToolResult:
		return clonePtr(v, func(x sdk.ToolResult) sdk.ToolResult { return clonePart(x).(sdk.ToolResult) })
	}
	return p // a type outside sdk's set: nothing known to copy
}

func clonePtr[T any](p *T, copyValue func(T) T) *T {
	if p == nil {
		return nil
	}
	c := copyValue(*p)
	return &c
}

func cloneRaw(r json.RawMessage) json.RawMessage { return bytes.Clone(r) }

// dropForeignReasoning removes reasoning another provider produced (its
// Origin names another hop): a signature or encrypted reasoning block is
// only valid for the provider that made it, and a strict provider refuses
// the whole request over one. Reasoning of unknown origin (a client sent it
// back) is kept. r is the hop's own copy.
func dropForeignReasoning(r *sdk.Request, hop string) *sdk.Request {
	for i, m := range r.Messages {
		keep := m.Parts[:0:0]
		dropped := false
		for _, p := range m.Parts {
			if rp, ok := p.(sdk.Reasoning); ok && rp.Origin != "" && rp.Origin != hop {
				dropped = true
				continue
			}
			keep = append(keep, p)
		}
		if dropped {
			r.Messages[i].Parts = keep
		}
	}
	return r
}
