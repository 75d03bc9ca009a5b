package main

import (
	"strings"
	"testing"
)

// BenchmarkExtractHTML measures text extraction of a page at the default
// size limit (256 KiB), the worst case a call pays after the download.
func BenchmarkExtractHTML(b *testing.B) {
	var page strings.Builder
	page.WriteString("<html><head><title>Bench</title><script>var x = 1;</script></head><body><nav><a href=/>Home</a></nav>")
	for page.Len() < defaultMaxBytes {
		page.WriteString(`<h2>Section</h2><p>Some <a href="/x">linked</a> text with <em>emphasis</em> and   spaces.</p><ul><li>one</li><li>two</li></ul>`)
	}
	src := []byte(page.String()[:defaultMaxBytes])
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		extractHTML(src)
	}
}
