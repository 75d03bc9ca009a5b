package edit

import (
	"slices"

	"github.com/axonhq/axon/hcl/config"
	"github.com/hashicorp/hcl/v2"
)

// FieldDiag is one of the loader's diagnostics about edited text, tied to
// the edit it is about so that a panel can show it beside the field.
type FieldDiag struct {
	// Edit is the index of the edit whose written range holds the
	// diagnostic's subject (the smallest such range when several do), or
	// -1 when it is about no edited field.
	Edit     int        `json:"edit"`
	Severity string     `json:"severity"` // "error" or "warning"
	Summary  string     `json:"summary"`
	Detail   string     `json:"detail,omitempty"`
	Line     int        `json:"line,omitempty"` // 0 when the diagnostic has no subject
	Subject  *hcl.Range `json:"subject,omitempty"`
}

// Validate parses src, the text of filename, with the loader axon check
// uses (config.NewLoader(opts).Parse) and returns its diagnostics, each
// tied to the edit whose range in written (Result.Ranges) contains its
// subject. filename should be the file's real path: relative paths in it
// resolve against its directory, as they will when axon loads it. Text
// with an error diagnostic must not be written.
func Validate(filename string, src []byte, opts config.Options, written []hcl.Range) []FieldDiag {
	_, diags := config.NewLoader(opts).Parse(filename, src)
	out := make([]FieldDiag, 0, len(diags))
	for _, d := range diags {
		fd := FieldDiag{Edit: owner(written, d.Subject), Severity: severity(d.Severity), Summary: d.Summary, Detail: d.Detail, Subject: d.Subject}
		if d.Subject != nil {
			fd.Line = d.Subject.Start.Line
		}
		out = append(out, fd)
	}
	return out
}

// HasErrors reports whether any of diags is an error: the text must then
// not be written.
func HasErrors(diags []FieldDiag) bool {
	return slices.ContainsFunc(diags, func(d FieldDiag) bool { return d.Severity != "warning" })
}

// owner is the edit whose range most closely contains subject, or -1.
func owner(written []hcl.Range, subject *hcl.Range) int {
	best := -1
	for i, r := range written {
		if !contains(r, subject) {
			continue
		}
		if best < 0 || size(r) <= size(written[best]) { // a later edit of the same field wrote what is there
			best = i
		}
	}
	return best
}

func size(r hcl.Range) int { return r.End.Byte - r.Start.Byte }

func severity(s hcl.DiagnosticSeverity) string {
	if s == hcl.DiagWarning {
		return "warning"
	}
	return "error"
}
