package edit

import (
	"slices"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// place is what an edit writes: an attribute of the last block of path, or
// (attr "") that block itself.
type place struct {
	path    []blockRef
	attr    string
	removed bool
}

// locate finds p in the final text, parsed as the loader parses it, so the
// range is the one the loader's diagnostics use.
func (p place) locate(body *hclsyntax.Body, filename string) hcl.Range {
	var found []*hclsyntax.Block
	for _, ref := range p.path {
		i := slices.IndexFunc(body.Blocks, func(b *hclsyntax.Block) bool {
			return b.Type == ref.typ && slices.Equal(b.Labels, ref.labels)
		})
		if i < 0 {
			break
		}
		found = append(found, body.Blocks[i])
		body = body.Blocks[i].Body
	}
	if len(found) == 0 {
		return hcl.Range{Filename: filename}
	}
	last := found[len(found)-1]
	if p.removed || len(found) < len(p.path) {
		return last.DefRange()
	}
	if p.attr == "" {
		return last.Range()
	}
	if a, ok := last.Body.Attributes[p.attr]; ok {
		return a.SrcRange
	}
	return last.DefRange()
}

// contains reports whether sub lies within r; a zero r contains nothing.
func contains(r hcl.Range, sub *hcl.Range) bool {
	return sub != nil && r.End.Byte > r.Start.Byte && r.Filename == sub.Filename &&
		r.Start.Byte <= sub.Start.Byte && sub.End.Byte <= r.End.Byte
}
