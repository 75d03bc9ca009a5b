package config

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/hcl/v2"
)

// TestCanDelegate: can_delegate is false unless written true, only a real
// boolean is accepted, a diagnostic points at its value, and the host
// keeps it out of the plugin-owned body.
func TestCanDelegate(t *testing.T) {
	t.Parallel()
	// The attribute is on line 3, from column 3; its value from column 18.
	for _, tc := range []struct {
		name, attr string
		want       bool
		wantRange  hcl.Range // where CanDelegateRange, or the error, points
		wantErr    string
	}{
		{name: "absent"},
		{name: "true", attr: "can_delegate = true", want: true, wantRange: delegateRange(3, 18, 3, 22)},
		{name: "false", attr: "can_delegate = false", wantRange: delegateRange(3, 18, 3, 23)},
		{name: "a string is not a boolean", attr: `can_delegate = "true"`, wantErr: `Invalid value for "can_delegate"`, wantRange: delegateRange(3, 18, 3, 24)},
		{name: "a number is not a boolean", attr: "can_delegate = 1", wantErr: `Invalid value for "can_delegate"`, wantRange: delegateRange(3, 18, 3, 19)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			src := "provider \"p\" {\n  preset = \"ollama\"\n  " + tc.attr + "\n}\nchain \"default\" { providers = [provider.p] }\n"
			cfg, diags, l := parse(t, src)
			if tc.wantErr != "" {
				if len(diags) != 1 || diags[0].Summary != tc.wantErr || diags[0].Subject == nil {
					t.Fatalf("want one %q error, got:\n%s", tc.wantErr, render(t, l.Files(), diags))
				}
				if diff := cmp.Diff(tc.wantRange, *diags[0].Subject); diff != "" {
					t.Errorf("error range (-want +got):\n%s", diff)
				}
				return
			}
			if diags.HasErrors() {
				t.Fatalf("diagnostics:\n%s", render(t, l.Files(), diags))
			}
			p := cfg.Provider("p")
			if p.CanDelegate != tc.want {
				t.Errorf("CanDelegate = %v, want %v", p.CanDelegate, tc.want)
			}
			if diff := cmp.Diff(tc.wantRange, p.CanDelegateRange); diff != "" {
				t.Errorf("CanDelegateRange (-want +got):\n%s", diff)
			}
			attrs, _ := p.Body.JustAttributes()
			if _, ok := attrs["can_delegate"]; ok {
				t.Error("can_delegate reached the plugin-owned body")
			}
		})
	}
}

// delegateRange is a range of /etc/axon/axon.hcl (what parse names the file), with
// the byte offsets of the test sources above: lines 1 and 2 are 15 and 20
// bytes long with their newlines.
func delegateRange(line, col, endLine, endCol int) hcl.Range {
	off := func(l, c int) int { return map[int]int{1: 0, 2: 15, 3: 35}[l] + c - 1 }
	return hcl.Range{Filename: "/etc/axon/axon.hcl",
		Start: hcl.Pos{Line: line, Column: col, Byte: off(line, col)},
		End:   hcl.Pos{Line: endLine, Column: endCol, Byte: off(endLine, endCol)}}
}
