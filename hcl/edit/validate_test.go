package edit

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// TestValidateMapsToEdit: each diagnostic the loader gives about edited
// text lands on the edit that caused it, at the line the field is on.
func TestValidateMapsToEdit(t *testing.T) {
	t.Parallel()
	// Edit 0 in every case is one the loader accepts, so a diagnostic
	// landing on it would be a mapping bug.
	fine := ed("chain", "default", "strategy", `"rotate"`)
	tests := []struct {
		name  string
		edits []Edit
		want  []FieldDiag // Detail and Subject not compared
	}{
		{
			name:  "bad tier",
			edits: []Edit{fine, ed("provider", "local", "tier", `"gold"`)},
			want:  []FieldDiag{{Edit: 1, Severity: "error", Summary: `Invalid value for "tier"`, Line: 55}},
		},
		{
			name:  "unknown strategy",
			edits: []Edit{ed("provider", "local", "tier", `"local"`), ed("chain", "code", "strategy", `"fastest"`)},
			want:  []FieldDiag{{Edit: 1, Severity: "error", Summary: `Invalid value for "strategy"`, Line: 71}},
		},
		{
			name:  "zero budget",
			edits: []Edit{fine, ed("provider", "local", "budget", `0`)},
			want:  []FieldDiag{{Edit: 1, Severity: "error", Summary: `Invalid value for "usd_per_month"`, Line: 57}},
		},
		{
			name:  "classifier not local",
			edits: []Edit{fine, ed("chain", "code", "classifier", `{"provider": "claude"}`)},
			want:  []FieldDiag{{Edit: 1, Severity: "error", Summary: "Classifier is not local", Line: 75}},
		},
		{
			name:  "unknown provider in a chain",
			edits: []Edit{fine, ed("chain", "private", "providers", `["local", "gpt"]`)},
			want:  []FieldDiag{{Edit: 1, Severity: "error", Summary: "Unknown provider", Line: 81}},
		},
		{
			// With billing on, claude is routed only while its block says
			// enabled = true: the warning is about the removal.
			name:  "removing enabled closes the paid gate",
			edits: []Edit{ed("billing", "", "enabled", `true`), fine, ed("provider", "claude", "enabled", `null`)},
			want:  []FieldDiag{{Edit: 2, Severity: "warning", Summary: "Paid provider is never routed", Line: 33}},
		},
		{
			// The file's own warning (billing is off) is about no edit.
			name:  "warning about no edit",
			edits: []Edit{fine},
			want:  []FieldDiag{{Edit: -1, Severity: "warning", Summary: "Paid provider is never routed", Line: 33}},
		},
		{
			// The same field twice: what is there is the last edit's.
			name:  "last edit of a field owns it",
			edits: []Edit{ed("provider", "local", "tier", `"gold"`), fine, ed("provider", "local", "tier", `"silver"`)},
			want:  []FieldDiag{{Edit: 2, Severity: "error", Summary: `Invalid value for "tier"`, Line: 55}},
		},
	}
	src := read(t, "axon.hcl")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := Apply("axon.hcl", src, tt.edits)
			if err != nil {
				t.Fatal(err)
			}
			got := Validate("axon.hcl", res.Src, opts, res.Ranges)
			if diff := cmp.Diff(tt.want, got, cmpopts.IgnoreFields(FieldDiag{}, "Detail", "Subject")); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s\n%s", diff, res.Src)
			}
			if HasErrors(got) != (tt.want[0].Severity == "error") {
				t.Errorf("HasErrors = %v for %+v", HasErrors(got), got)
			}
		})
	}
}

// TestValidateNonBoolean: a value Apply would never write (it refuses a
// non-boolean enabled) but a hand edit might is still mapped by range.
func TestValidateNonBoolean(t *testing.T) {
	t.Parallel()
	src := []byte("axon {\n  billing { enabled = \"yes\" }\n}\n\nprovider \"local\" {\n  preset = \"ollama\"\n  enabled = 1\n}\n\nchain \"default\" {\n  providers = [provider.local]\n}\n")
	f, diags := hclsyntax.ParseConfig(src, "axon.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	body := f.Body.(*hclsyntax.Body)
	written := []hcl.Range{
		body.Blocks[1].Body.Attributes["enabled"].SrcRange,
		body.Blocks[0].Body.Blocks[0].Body.Attributes["enabled"].SrcRange,
	}
	got := Validate("axon.hcl", src, opts, written)
	want := []FieldDiag{
		{Edit: 1, Severity: "error", Summary: `Invalid value for "enabled"`, Line: 2},
		{Edit: 0, Severity: "error", Summary: `Invalid value for "enabled"`, Line: 7},
	}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(FieldDiag{}, "Detail", "Subject")); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
	if !HasErrors(got) {
		t.Error("HasErrors = false")
	}
}
