package config

import (
	"fmt"
	"io"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// WriteDiagnostics prints diags as HCL does: severity, summary, the file
// and line, the source line, and the detail. A diagnostic about
// $AXON_CHAIN also has carets under the entry it is about: the value is
// one line of several entries, so the line alone does not say which.
// files is Loader.Files (plus LoadLock's files for lock diagnostics).
func WriteDiagnostics(w io.Writer, files map[string]*hcl.File, diags hcl.Diagnostics) error {
	hw := hcl.NewDiagnosticTextWriter(w, files, 0, false)
	for _, d := range diags {
		var err error
		if f := files[chainEnvFile]; f != nil && d.Subject != nil && d.Subject.Filename == chainEnvFile {
			err = writeMarked(w, f.Bytes, d)
		} else {
			err = hw.WriteDiagnostic(d)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// writeMarked writes d in the layout of hcl's text writer, each line of its
// subject followed by a line of carets under the subject's part of it (one
// caret where the subject is empty, such as a blank entry).
func writeMarked(w io.Writer, src []byte, d *hcl.Diagnostic) error {
	var b strings.Builder
	severity := "Error"
	if d.Severity == hcl.DiagWarning {
		severity = "Warning"
	}
	s := d.Subject
	fmt.Fprintf(&b, "%s: %s\n\n  on %s line %d:\n", severity, d.Summary, s.Filename, s.Start.Line)
	start := 0
	for n, line := range strings.SplitAfter(string(src), "\n") {
		lineStart := start
		start += len(line)
		line = strings.TrimSuffix(line, "\n")
		if n+1 < s.Start.Line || n+1 > s.End.Line {
			continue
		}
		lineEnd := lineStart + len(line)
		from, to := lineStart, lineEnd
		if n+1 == s.Start.Line {
			from = min(max(s.Start.Byte, lineStart), lineEnd)
		}
		if n+1 == s.End.Line {
			to = min(max(s.End.Byte, from), lineEnd)
		}
		carets := max(1, len([]rune(string(src[from:to]))))
		fmt.Fprintf(&b, "%4d: %s\n      %s%s\n", n+1, line, blank(string(src[lineStart:from])), strings.Repeat("^", carets))
	}
	b.WriteString("\n")
	if d.Detail != "" {
		fmt.Fprintf(&b, "%s\n\n", d.Detail)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// blank is s with every character but a tab made a space, so that what
// follows it lines up under the source line in a terminal.
func blank(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\t' {
			return r
		}
		return ' '
	}, s)
}
