package edit

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
)

// A step is one change to a freshly parsed file. hclwrite can replace and
// remove items in place but can only append new ones, so a step that puts
// an attribute or block somewhere tidier rebuilds the body from its tokens;
// that leaves the tree stale, hence a fresh parse per step. again asks for
// the step to run once more on the new text (after it expanded a one-line
// block, say).
type step func(root *hclwrite.Body) (again bool, err error)

// blockRef names a block: provider "glm", or a nested budget.
type blockRef struct {
	typ    string
	labels []string
}

func (r blockRef) String() string {
	if len(r.labels) == 0 {
		return r.typ
	}
	return fmt.Sprintf("%s %q", r.typ, r.labels[0])
}

// resolve walks path from the file's body. A provider or chain the file
// does not define is an error; any other missing block is nil.
func resolve(root *hclwrite.Body, path []blockRef) ([]*hclwrite.Block, error) {
	var blocks []*hclwrite.Block
	body := root
	for i, ref := range path {
		b := body.FirstMatchingBlock(ref.typ, ref.labels)
		if b == nil {
			if i == 0 && ref.typ != "axon" {
				return nil, fmt.Errorf("the file has no %s block", ref)
			}
			return blocks, nil
		}
		blocks = append(blocks, b)
		body = b.Body()
	}
	return blocks, nil
}

// ensureBlocks creates the blocks of path the file lacks, one per run: an
// axon block before the file's first block, a nested block at the end of
// its parent.
func ensureBlocks(path []blockRef) step {
	return func(root *hclwrite.Body) (bool, error) {
		blocks, err := resolve(root, path)
		if err != nil || len(blocks) == len(path) {
			return false, err
		}
		ref := path[len(blocks)]
		if len(blocks) == 0 {
			return true, insertTopBlock(root, ref)
		}
		parent := blocks[len(blocks)-1]
		if oneLine(parent.Body()) {
			expand(parent)
			return true, nil
		}
		return true, appendBlock(parent, ref)
	}
}

// setAttr sets name in the last block of path, which exists: in place when
// the attribute is there (its comments stay), else after the block's last
// attribute, before its nested blocks.
func setAttr(path []blockRef, name string, expr hclwrite.Tokens) step {
	return func(root *hclwrite.Body) (bool, error) {
		blocks, err := resolve(root, path)
		if err != nil {
			return false, err
		}
		if len(blocks) < len(path) {
			return false, fmt.Errorf("internal error: no %s block to write %s in", path[len(blocks)], name)
		}
		blk := blocks[len(blocks)-1]
		body := blk.Body()
		value, err := formatExpr(expr)
		if err != nil {
			return false, err
		}
		if a := body.GetAttribute(name); a != nil {
			if old := a.Expr().BuildTokens(nil); len(old) > 0 && old[0].SpacesBefore > 0 {
				value[0].SpacesBefore = old[0].SpacesBefore
			}
			body.SetAttributeRaw(name, value)
			return false, nil
		}
		if oneLine(body) {
			expand(blk)
			return true, nil
		}
		return false, insertAttr(blk, name, value)
	}
}

// removeAttr removes name, with its comments, from the last block of path;
// nothing when the block or attribute is not there.
func removeAttr(path []blockRef, name string) step {
	return func(root *hclwrite.Body) (bool, error) {
		blocks, err := resolve(root, path)
		if err != nil || len(blocks) < len(path) {
			return false, err
		}
		body := blocks[len(blocks)-1].Body()
		a := body.GetAttribute(name)
		if a == nil {
			return false, nil
		}
		at := startOf(body, a.BuildTokens(nil))
		body.RemoveAttribute(name)
		tidyGap(body, at, false)
		return false, nil
	}
}

// removeBlock removes the last block of path, with its comments.
func removeBlock(path []blockRef) step {
	return func(root *hclwrite.Body) (bool, error) {
		blocks, err := resolve(root, path)
		if err != nil || len(blocks) < len(path) {
			return false, err
		}
		parent := root
		if len(blocks) > 1 {
			parent = blocks[len(blocks)-2].Body()
		}
		b := blocks[len(blocks)-1]
		at := startOf(parent, b.BuildTokens(nil))
		parent.RemoveBlock(b)
		tidyGap(parent, at, len(blocks) == 1)
		return false, nil
	}
}

// dropIfEmpty removes the last block of path when nothing but blank lines
// is left in it; a comment keeps it.
func dropIfEmpty(path []blockRef) step {
	remove := removeBlock(path)
	return func(root *hclwrite.Body) (bool, error) {
		blocks, err := resolve(root, path)
		if err != nil || len(blocks) < len(path) {
			return false, err
		}
		for _, t := range blocks[len(blocks)-1].Body().BuildTokens(nil) {
			if t.Type != hclsyntax.TokenNewline {
				return false, nil
			}
		}
		return remove(root)
	}
}

// insertAttr puts name = expr after the last attribute that precedes the
// block's first nested block, lined up with it; at the top of the body,
// followed by a blank line, when nested blocks come first.
func insertAttr(blk *hclwrite.Block, name string, expr hclwrite.Tokens) error {
	body := blk.Body()
	toks := body.BuildTokens(nil)
	items := spans(body, toks)
	indent := bodyIndent(toks, items, indentOf(blk))

	firstBlock := len(toks)
	if i := slices.IndexFunc(items, func(s span) bool { return s.block }); i >= 0 {
		firstBlock = items[i].start
	}
	var prev *span
	for i := range items {
		if !items[i].block && items[i].start < firstBlock {
			prev = &items[i]
		}
	}
	line, err := attrLine(name, expr, indent)
	if err != nil {
		return err
	}
	var at int
	switch {
	case prev != nil:
		at = prev.end
		prevToks := toks[prev.start:prev.end]
		alignEquals(line, prevToks, indent, name)
		if !endsLine(toks[at-1]) {
			line = append(hclwrite.Tokens{newline()}, line...)
		}
	case firstBlock < len(toks):
		at = firstBlock
		line = append(line, newline())
	default:
		at = len(toks)
	}
	rebuild(body, slices.Concat(toks[:at], line, toks[at:]))
	return nil
}

// appendBlock puts an empty ref block at the end of blk's body, after a
// blank line when the body has something in it.
func appendBlock(blk *hclwrite.Block, ref blockRef) error {
	body := blk.Body()
	toks := body.BuildTokens(nil)
	indent := bodyIndent(toks, spans(body, toks), indentOf(blk))
	add, err := emptyBlock(ref, indent)
	if err != nil {
		return err
	}
	if !onlyNewlines(toks) && !isBlank(toks, len(toks)-1, false) {
		add = append(hclwrite.Tokens{newline()}, add...)
	}
	rebuild(body, slices.Concat(toks, add))
	return nil
}

// insertTopBlock puts an empty ref block before the file's first block
// (and its lead comments), so that a file's axon block comes first.
func insertTopBlock(root *hclwrite.Body, ref blockRef) error {
	toks := root.BuildTokens(nil)
	add, err := emptyBlock(ref, 0)
	if err != nil {
		return err
	}
	at := len(toks)
	if blocks := root.Blocks(); len(blocks) > 0 {
		at = startOf(root, blocks[0].BuildTokens(nil))
		add = append(add, newline())
	} else if len(toks) > 0 {
		if !endsLine(toks[len(toks)-1]) {
			add = append(hclwrite.Tokens{newline()}, add...)
		} else if !isBlank(toks, len(toks)-1, true) {
			add = append(hclwrite.Tokens{newline()}, add...)
		}
	}
	rebuild(root, slices.Concat(toks[:at], add, toks[at:]))
	return nil
}

// expand turns a one-line block, budget { usd_per_month = 20 }, into the
// multi-line form, so that another item can be added to it.
func expand(blk *hclwrite.Block) {
	body := blk.Body()
	toks := body.BuildTokens(nil)
	indent := indentOf(blk)
	out := hclwrite.Tokens{newline()}
	if len(toks) > 0 {
		toks[0].SpacesBefore = indent + 2
		out = append(out, toks...)
		out = append(out, newline())
	}
	all := blk.BuildTokens(nil)
	for i := len(all) - 1; i >= 0; i-- {
		if all[i].Type == hclsyntax.TokenCBrace {
			all[i].SpacesBefore = indent
			break
		}
	}
	rebuild(body, out)
}

// tidyGap drops a blank line left doubled, or left against a brace, where
// an item was removed at index at of body's tokens.
func tidyGap(body *hclwrite.Body, at int, root bool) {
	toks := body.BuildTokens(nil)
	atStart := at == 0 || (!root && at == 1 && toks[0].Type == hclsyntax.TokenNewline)
	switch {
	case isBlank(toks, at-1, root) && (at == len(toks) || isBlank(toks, at, root)):
		rebuild(body, slices.Delete(toks, at-1, at))
	case atStart && isBlank(toks, at, root):
		rebuild(body, slices.Delete(toks, at, at+1))
	}
}

// span is where one item of a body lies in its tokens, [start, end),
// lead comments and line end included.
type span struct {
	start, end int
	block      bool
}

// spans lists the items of body in order; toks is body.BuildTokens(nil),
// which shares its *Token values with the items' own tokens.
func spans(body *hclwrite.Body, toks hclwrite.Tokens) []span {
	var out []span
	add := func(its hclwrite.Tokens, block bool) {
		if len(its) == 0 {
			return
		}
		s, e := slices.Index(toks, its[0]), slices.Index(toks, its[len(its)-1])
		if s >= 0 && e >= s {
			out = append(out, span{start: s, end: e + 1, block: block})
		}
	}
	for _, a := range body.Attributes() {
		add(a.BuildTokens(nil), false)
	}
	for _, b := range body.Blocks() {
		add(b.BuildTokens(nil), true)
	}
	slices.SortFunc(out, func(a, b span) int { return a.start - b.start })
	return out
}

func startOf(body *hclwrite.Body, item hclwrite.Tokens) int {
	if len(item) == 0 {
		return 0
	}
	return slices.Index(body.BuildTokens(nil), item[0])
}

// indentOf is the column a block's type name starts at.
func indentOf(blk *hclwrite.Block) int {
	for _, t := range blk.BuildTokens(nil) {
		if t.Type == hclsyntax.TokenIdent {
			return t.SpacesBefore
		}
	}
	return 0
}

// bodyIndent is the indentation the body's items already use, else two
// more than its block's.
func bodyIndent(toks hclwrite.Tokens, items []span, parent int) int {
	for _, it := range items {
		if it.start > 0 && endsLine(toks[it.start-1]) {
			return toks[it.start].SpacesBefore
		}
	}
	return parent + 2
}

// alignEquals lines the new attribute's "=" up with the one of the
// attribute it follows, as hclwrite's formatter lines up a group.
func alignEquals(line, prev hclwrite.Tokens, indent int, name string) {
	k := slices.IndexFunc(prev, func(t *hclwrite.Token) bool { return t.Type == hclsyntax.TokenIdent })
	if k < 0 || k+1 >= len(prev) || prev[k+1].Type != hclsyntax.TokenEqual || len(line) < 2 {
		return
	}
	col := prev[k].SpacesBefore + len(prev[k].Bytes) + prev[k+1].SpacesBefore
	line[1].SpacesBefore = max(1, col-indent-len(name))
}

// oneLine reports a block body written on its opening line, as in
// billing { enabled = true } or {}.
func oneLine(body *hclwrite.Body) bool {
	return !slices.ContainsFunc(body.BuildTokens(nil), endsLine)
}

func endsLine(t *hclwrite.Token) bool {
	return t.Type == hclsyntax.TokenNewline ||
		(t.Type == hclsyntax.TokenComment && bytes.HasSuffix(t.Bytes, []byte("\n")))
}

// isBlank reports whether toks[i] is an empty line of its own. The first
// token of a nested body ends the line of its opening brace; the first of
// the file starts a line.
func isBlank(toks hclwrite.Tokens, i int, root bool) bool {
	if i < 0 || i >= len(toks) || toks[i].Type != hclsyntax.TokenNewline {
		return false
	}
	if i == 0 {
		return root
	}
	return endsLine(toks[i-1])
}

func onlyNewlines(toks hclwrite.Tokens) bool {
	return !slices.ContainsFunc(toks, func(t *hclwrite.Token) bool { return t.Type != hclsyntax.TokenNewline })
}

func newline() *hclwrite.Token {
	return &hclwrite.Token{Type: hclsyntax.TokenNewline, Bytes: []byte("\n")}
}

func rebuild(body *hclwrite.Body, toks hclwrite.Tokens) {
	body.Clear()
	body.AppendUnstructuredTokens(toks)
}

// formatExpr spaces expr as hclwrite's formatter does (["a", "b"], not
// ["a","b"]): generated tokens carry no spacing of their own, and the
// file itself is never reformatted, so the value is formatted alone.
func formatExpr(expr hclwrite.Tokens) (hclwrite.Tokens, error) {
	f := hclwrite.NewEmptyFile()
	f.Body().SetAttributeRaw("x", expr)
	body, err := reparse(f.Bytes(), 0)
	if err != nil {
		return nil, err
	}
	return body.GetAttribute("x").Expr().BuildTokens(nil), nil
}

// attrLine is name = expr and a newline, indented.
func attrLine(name string, expr hclwrite.Tokens, indent int) (hclwrite.Tokens, error) {
	f := hclwrite.NewEmptyFile()
	f.Body().SetAttributeRaw(name, expr)
	body, err := reparse(f.Bytes(), indent)
	if err != nil {
		return nil, err
	}
	return body.BuildTokens(nil), nil
}

// emptyBlock is `ref {` and `}` on two lines, indented.
func emptyBlock(ref blockRef, indent int) (hclwrite.Tokens, error) {
	f := hclwrite.NewEmptyFile()
	f.Body().AppendNewBlock(ref.typ, ref.labels)
	body, err := reparse(f.Bytes(), indent)
	if err != nil {
		return nil, err
	}
	return body.BuildTokens(nil), nil
}

// reparse parses text that hclwrite generated and formatted, each line
// indented by indent spaces, and returns its body: tokens with their
// spacing, ready to be spliced into another body.
func reparse(text []byte, indent int) (*hclwrite.Body, error) {
	pad := bytes.Repeat([]byte(" "), indent)
	var b bytes.Buffer
	for line := range bytes.Lines(text) {
		if len(bytes.TrimSpace(line)) > 0 {
			b.Write(pad)
		}
		b.Write(line)
	}
	f, diags := hclwrite.ParseConfig(b.Bytes(), "", hcl.InitialPos)
	if diags.HasErrors() {
		// Every token came from hclwrite's generators: a bug, not input.
		return nil, fmt.Errorf("internal error: generated text does not parse: %w", diags)
	}
	return f.Body(), nil
}
