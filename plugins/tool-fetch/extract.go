package main

import (
	"bytes"
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// skipped elements carry no text a reader sees, or (nav) only site chrome.
var skipped = map[atom.Atom]bool{
	atom.Head: true, atom.Script: true, atom.Style: true, atom.Nav: true, atom.Noscript: true,
	atom.Template: true, atom.Svg: true, atom.Math: true, atom.Iframe: true, atom.Object: true,
	atom.Canvas: true, atom.Select: true, atom.Button: true,
}

// breaks is the separation an element puts around its text: 1 a line break,
// 2 a blank line. Elements not listed are inline.
var breaks = map[atom.Atom]int{
	atom.P: 2, atom.Blockquote: 2, atom.Section: 2, atom.Article: 2, atom.Main: 2, atom.Header: 2,
	atom.Footer: 2, atom.Aside: 2, atom.Figure: 2, atom.Table: 2, atom.Dl: 2, atom.Form: 2,
	atom.Fieldset: 2, atom.Details: 2, atom.Hr: 2, atom.Body: 2,
	atom.Div: 1, atom.Ul: 1, atom.Ol: 1, atom.Tr: 1, atom.Dt: 1, atom.Dd: 1, atom.Figcaption: 1,
	atom.Address: 1, atom.Summary: 1, atom.Caption: 1, atom.Br: 1,
}

var headings = map[atom.Atom]int{atom.H1: 1, atom.H2: 2, atom.H3: 3, atom.H4: 4, atom.H5: 5, atom.H6: 6}

// extractHTML reduces an HTML document to its title and readable text:
// headings as "# ", list items as "- " or "1. ", table cells joined by " | ",
// <pre> kept verbatim in a fence, links reduced to their text, and every
// other run of whitespace collapsed to one space.
func extractHTML(src []byte) (title, text string) {
	doc, err := html.Parse(bytes.NewReader(src))
	if err != nil { // html.Parse fails only when reading fails; src is in memory
		return "", ""
	}
	e := &extractor{}
	e.walk(doc)
	e.flush(1)
	return collapse(titleOf(doc)), strings.ToValidUTF8(e.out.String(), "\uFFFD")
}

// list is an open <ul> or <ol>.
type list struct {
	ordered bool
	n       int
}

type extractor struct {
	out     strings.Builder
	line    strings.Builder // the current block's text, whitespace collapsed
	space   bool            // a space is owed before the next word
	prefix  string          // marker of the current block: "## ", "- "
	pending int             // separation owed before the next block
	lists   []list
}

func (e *extractor) walk(n *html.Node) {
	switch n.Type {
	case html.TextNode:
		e.text(n.Data)
		return
	case html.ElementNode:
		if skipped[n.DataAtom] || hidden(n) {
			return
		}
	case html.DocumentNode:
	default: // comments, doctype
		return
	}
	switch a := n.DataAtom; {
	case headings[a] > 0:
		e.flush(2)
		e.prefix = strings.Repeat("#", headings[a]) + " "
		e.children(n)
		e.flush(2)
		e.prefix = ""
	case a == atom.Ul || a == atom.Ol:
		e.flush(1)
		e.lists = append(e.lists, list{ordered: a == atom.Ol})
		e.children(n)
		e.lists = e.lists[:len(e.lists)-1]
		e.flush(1)
	case a == atom.Li:
		e.flush(1)
		e.prefix = e.bullet()
		e.children(n)
		e.flush(1)
		e.prefix = ""
	case a == atom.Pre:
		e.flush(2)
		if code := strings.Trim(textOf(n), "\n"); strings.TrimSpace(code) != "" {
			e.block("```\n" + code + "\n```")
			e.prefix, e.pending = "", 2
		}
	case a == atom.Td || a == atom.Th:
		if e.line.Len() > 0 {
			e.line.WriteString(" |")
			e.space = true
		}
		e.children(n)
	default:
		sep := breaks[a]
		e.flush(sep)
		e.children(n)
		e.flush(sep)
	}
}

func (e *extractor) children(n *html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		e.walk(c)
	}
}

// bullet is the marker of the next item of the innermost list.
func (e *extractor) bullet() string {
	if len(e.lists) == 0 {
		return "- "
	}
	l := &e.lists[len(e.lists)-1]
	indent := strings.Repeat("  ", len(e.lists)-1)
	if !l.ordered {
		return indent + "- "
	}
	l.n++
	return indent + strconv.Itoa(l.n) + ". "
}

// text adds s to the current line, collapsing whitespace.
func (e *extractor) text(s string) {
	for _, r := range s {
		if unicode.IsSpace(r) {
			e.space = true
			continue
		}
		if e.space && e.line.Len() > 0 {
			e.line.WriteByte(' ')
		}
		e.space = false
		e.line.WriteRune(r)
	}
}

// flush ends the current block. sep is the separation the element owes
// the next block; an element with no text only raises it. 0 is inline. A
// marker waits for the first text, so <li><p>x</p></li> is still "- x";
// the heading or item that set it clears it when it ends.
func (e *extractor) flush(sep int) {
	if sep == 0 {
		return
	}
	if e.line.Len() > 0 {
		e.block(e.prefix + e.line.String())
		e.line.Reset()
		e.prefix = ""
	}
	e.space = false
	e.pending = max(e.pending, sep)
}

// block writes a finished block after the separation owed.
func (e *extractor) block(s string) {
	if e.out.Len() > 0 {
		e.out.WriteString(strings.Repeat("\n", max(e.pending, 1)))
	}
	e.out.WriteString(s)
	e.pending = 0
}

// hidden reports the attributes that hide an element from a reader.
func hidden(n *html.Node) bool {
	for _, a := range n.Attr {
		if a.Key == "hidden" || (a.Key == "aria-hidden" && a.Val == "true") {
			return true
		}
	}
	return false
}

// titleOf finds the document's first <title>.
func titleOf(n *html.Node) string {
	if n.Type == html.ElementNode && n.DataAtom == atom.Title {
		return textOf(n)
	}
	if n.Type == html.ElementNode && (n.DataAtom == atom.Svg || n.DataAtom == atom.Body) {
		return "" // an <svg> title is a tooltip; a body title is not the page's
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if t := titleOf(c); t != "" {
			return t
		}
	}
	return ""
}

// textOf is all text under n, verbatim.
func textOf(n *html.Node) string {
	var b strings.Builder
	var rec func(*html.Node)
	rec = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			rec(c)
		}
	}
	rec(n)
	return b.String()
}

func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }
