package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestExtractHTML(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		html      string
		wantTitle string
		wantText  string
	}{
		{
			name:      "title and paragraphs, whitespace collapsed",
			html:      "<html><head><title>  Axon \n docs </title></head><body><p>One\n\t two  </p><p>Three&nbsp;&amp; four</p></body></html>",
			wantTitle: "Axon docs",
			wantText:  "One two\n\nThree & four",
		},
		{
			name:     "script, style, nav, noscript, template and hidden dropped",
			html:     `<head><style>p{}</style><script>var p = "<p>x</p>"</script></head><body><nav><a href="/">Home</a></nav><script>alert(1)</script><noscript>enable js</noscript><template><p>tpl</p></template><div hidden>secret</div><span aria-hidden="true">icon</span><p>kept</p></body>`,
			wantText: "kept",
		},
		{
			name:     "headings marked by level",
			html:     "<h1>Top</h1><p>a</p><h3>Deep  <em>part</em></h3><p>b</p>",
			wantText: "# Top\n\na\n\n### Deep part\n\nb",
		},
		{
			name:     "links keep their text only",
			html:     `<p>See <a href="https://example.com/x">the <b>manual</b></a>, then <a href="/y">go</a>.</p>`,
			wantText: "See the manual, then go.",
		},
		{
			name:     "inline elements do not add spaces",
			html:     "<p>in<b>line</b>d <i>words</i></p>",
			wantText: "inlined words",
		},
		{
			name:     "lists, nested and ordered",
			html:     "<p>Intro</p><ul><li>Fast</li><li>Small<ul><li>8 MB</li><li>1 core</li></ul></li></ul><p>Steps</p><ol><li>Install</li><li> Run </li></ol>",
			wantText: "Intro\n\n- Fast\n- Small\n  - 8 MB\n  - 1 core\n\nSteps\n\n1. Install\n2. Run",
		},
		{
			name:     "list items wrapping paragraphs keep their markers",
			html:     "<ul><li><p>loose one</p></li><li><div>loose <b>two</b></div></li></ul><h2><span></span></h2><p>after</p>",
			wantText: "- loose one\n\n- loose two\n\nafter",
		},
		{
			name:     "pre kept verbatim in a fence",
			html:     "<p>Run:</p><pre>\nmake run\n  ./bin/axon   serve\n</pre><p>done</p>",
			wantText: "Run:\n\n```\nmake run\n  ./bin/axon   serve\n```\n\ndone",
		},
		{
			name:     "table rows as lines, cells joined",
			html:     "<table><tr><th>name</th><th>kind</th></tr><tr><td>clock</td><td> tool </td></tr></table>",
			wantText: "name | kind\nclock | tool",
		},
		{
			name:     "divs and br break lines",
			html:     "<div>one</div><div>two<br>three</div>",
			wantText: "one\ntwo\nthree",
		},
		{
			name:     "empty blocks leave no blank lines",
			html:     "<div><p> </p><div></div></div><p>only</p><ul><li></li></ul><pre>\n  \n</pre>",
			wantText: "only",
		},
		{
			name:      "svg titles are not the page title",
			html:      "<body><svg><title>icon</title></svg><p>x</p></body>",
			wantTitle: "",
			wantText:  "x",
		},
		{
			name:     "invalid UTF-8 replaced",
			html:     "<p>caf\xe9</p>",
			wantText: "caf\uFFFD",
		},
		{
			name:     "cut in the middle of a tag still yields the text before it",
			html:     "<p>first</p><p>second</p><p class=\"x",
			wantText: "first\n\nsecond",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			title, text := extractHTML([]byte(tt.html))
			if title != tt.wantTitle {
				t.Errorf("title %q, want %q", title, tt.wantTitle)
			}
			if diff := cmp.Diff(tt.wantText, text); diff != "" {
				t.Errorf("text (-want +got):\n%s", diff)
			}
		})
	}
}
