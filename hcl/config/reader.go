package config

import (
	"fmt"
	"io/fs"
	"math/big"
	"strings"
	"time"

	"github.com/axonhq/axon/hcl/internal/suggest"
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// reader evaluates host-owned attribute expressions into Go values,
// collecting a diagnostic that points at the value for every problem. Each
// method returns ok=false when the attribute is absent, null or invalid, so
// the caller keeps its default.
type reader struct {
	ctx   *hcl.EvalContext
	home  string
	dir   string // configuration file's directory, "" when not a file
	goos  string
	stat  func(string) (fs.FileInfo, error)
	diags hcl.Diagnostics
}

func (r *reader) errorf(subject hcl.Range, summary, format string, args ...any) {
	r.diags = r.diags.Append(&hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  summary,
		Detail:   fmt.Sprintf(format, args...),
		Subject:  subject.Ptr(),
	})
}

func (r *reader) warnf(subject hcl.Range, summary, format string, args ...any) {
	r.diags = r.diags.Append(&hcl.Diagnostic{
		Severity: hcl.DiagWarning,
		Summary:  summary,
		Detail:   fmt.Sprintf(format, args...),
		Subject:  subject.Ptr(),
	})
}

func (r *reader) value(e hcl.Expression, name string, ty cty.Type) (cty.Value, bool) {
	if e == nil {
		return cty.NilVal, false
	}
	v, diags := e.Value(r.ctx)
	r.diags = r.diags.Extend(diags)
	if diags.HasErrors() || v.IsNull() {
		return cty.NilVal, false
	}
	cv, err := convert.Convert(v, ty)
	if err != nil {
		r.errorf(e.Range(), fmt.Sprintf("Invalid value for %q", name), "%s.", capitalize(err.Error()))
		return cty.NilVal, false
	}
	if !cv.IsWhollyKnown() {
		r.errorf(e.Range(), fmt.Sprintf("Invalid value for %q", name), "The value must be known when the configuration is loaded.")
		return cty.NilVal, false
	}
	return cv, true
}

// required reports a missing required argument at the block's header.
// gohcl never enforces presence for expression fields itself.
func (r *reader) required(e hcl.Expression, name string, block hcl.Range, example string) bool {
	if present(e) {
		return true
	}
	r.errorf(block, "Missing required argument", "The argument %q is required here, e.g. %s.", name, example)
	return false
}

func (r *reader) str(e hcl.Expression, name string) (string, bool) {
	v, ok := r.value(e, name, cty.String)
	if !ok {
		return "", false
	}
	return v.AsString(), true
}

func (r *reader) boolean(e hcl.Expression, name string) (bool, bool) {
	v, ok := r.value(e, name, cty.Bool)
	if !ok {
		return false, false
	}
	return v.True(), true
}

func (r *reader) strs(e hcl.Expression, name string) ([]string, bool) {
	v, ok := r.value(e, name, cty.List(cty.String))
	if !ok {
		return nil, false
	}
	var out []string
	for it := v.ElementIterator(); it.Next(); {
		_, ev := it.Element()
		if ev.IsNull() {
			r.errorf(e.Range(), fmt.Sprintf("Invalid value for %q", name), "The list must not contain null.")
			return nil, false
		}
		out = append(out, ev.AsString())
	}
	return out, true
}

// nonNegative reads a number that must be >= 0.
func (r *reader) nonNegative(e hcl.Expression, name string) (*big.Float, bool) {
	v, ok := r.value(e, name, cty.Number)
	if !ok {
		return nil, false
	}
	f := v.AsBigFloat()
	if f.Sign() < 0 {
		r.errorf(e.Range(), fmt.Sprintf("Invalid value for %q", name), "The value must not be negative.")
		return nil, false
	}
	return f, true
}

func (r *reader) float(e hcl.Expression, name string) (*float64, bool) {
	f, ok := r.nonNegative(e, name)
	if !ok {
		return nil, false
	}
	x, _ := f.Float64()
	return &x, true
}

// integer reads a whole number in [lo, hi].
func (r *reader) integer(e hcl.Expression, name string, lo, hi int64) (int64, bool) {
	v, ok := r.value(e, name, cty.Number)
	if !ok {
		return 0, false
	}
	f := v.AsBigFloat()
	n, acc := f.Int64()
	if !f.IsInt() || acc != big.Exact || n < lo || n > hi {
		r.errorf(e.Range(), fmt.Sprintf("Invalid value for %q", name), "A whole number from %d to %d is required.", lo, hi)
		return 0, false
	}
	return n, true
}

// duration reads a Go duration string such as "500ms" or "2m30s".
func (r *reader) duration(e hcl.Expression, name string, allowZero bool) (time.Duration, bool) {
	s, ok := r.str(e, name)
	if !ok {
		return 0, false
	}
	d, err := time.ParseDuration(s)
	switch {
	case err != nil:
		r.errorf(e.Range(), "Invalid duration", "%q is not a duration. Write a number with a unit, such as \"500ms\", \"20s\" or \"2m\".", s)
		return 0, false
	case d < 0 || (d == 0 && !allowZero):
		r.errorf(e.Range(), "Invalid duration", "%s must be greater than zero.", name)
		return 0, false
	}
	return d, true
}

// oneOf reads a string that must be one of allowed.
func (r *reader) oneOf(e hcl.Expression, name string, allowed ...string) (string, bool) {
	s, ok := r.str(e, name)
	if !ok {
		return "", false
	}
	for _, a := range allowed {
		if s == a {
			return s, true
		}
	}
	r.errorf(e.Range(), fmt.Sprintf("Invalid value for %q", name), "%q is not one of %s.%s", s, quoteList(allowed), didYouMean(s, allowed))
	return "", false
}

// path reads a filesystem path, expanding ~ and resolving it against the
// configuration file's directory.
func (r *reader) path(e hcl.Expression, name string) (string, bool) {
	s, ok := r.str(e, name)
	if !ok {
		return "", false
	}
	p, err := expandPath(s, r.dir, r.home)
	if err != nil {
		r.errorf(e.Range(), fmt.Sprintf("Invalid value for %q", name), "%s.", capitalize(err.Error()))
		return "", false
	}
	return p, true
}

func didYouMean(name string, candidates []string) string {
	if s := suggest.Name(name, candidates); s != "" {
		return fmt.Sprintf(" Did you mean %q?", s)
	}
	return ""
}

func quoteList(items []string) string {
	q := make([]string, len(items))
	for i, s := range items {
		q[i] = fmt.Sprintf("%q", s)
	}
	if len(q) <= 1 {
		return strings.Join(q, "")
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
