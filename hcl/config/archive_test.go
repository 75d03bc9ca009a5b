package config

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestArchiveBlock(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		src   string
		want  time.Duration
		diags []string
	}{
		{name: "absent", src: `axon {}`},
		{name: "days", src: "axon {\n  archive { after = \"30d\" }\n}", want: 30 * 24 * time.Hour},
		{name: "days and hours", src: "axon {\n  archive { after = \"1d12h\" }\n}", want: 36 * time.Hour},
		{name: "a Go duration", src: "axon {\n  archive { after = \"90m\" }\n}", want: 90 * time.Minute},
		{name: "no unit", src: "axon {\n  archive { after = \"30\" }\n}", diags: []string{"error: Invalid duration @/etc/axon/axon.hcl:2:21"}},
		{name: "zero", src: "axon {\n  archive { after = \"0d\" }\n}", diags: []string{"error: Invalid duration @/etc/axon/axon.hcl:2:21"}},
		{name: "negative", src: "axon {\n  archive { after = \"-3h\" }\n}", diags: []string{"error: Invalid duration @/etc/axon/axon.hcl:2:21"}},
		{name: "after missing", src: "axon {\n  archive {}\n}", diags: []string{`error: Missing required argument @/etc/axon/axon.hcl:2:3`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg, diags, _ := parse(t, tc.src+"\nprovider \"local\" { preset = \"ollama\" }\nchain \"default\" { providers = [provider.local] }\n")
			if d := cmp.Diff(tc.diags, summaries(diags)); d != "" {
				t.Fatalf("diagnostics (-want +got):\n%s", d)
			}
			if tc.diags != nil {
				return
			}
			if got := cfg.Axon.Archive.After; got != tc.want {
				t.Errorf("archive after = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestParseAge(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]time.Duration{"30d": 720 * time.Hour, "2d30m": 48*time.Hour + 30*time.Minute, "45s": 45 * time.Second} {
		if got, err := ParseAge(in); err != nil || got != want {
			t.Errorf("ParseAge(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "d", "1.5d", "xd", "3 days", "0s", "-1d"} {
		if got, err := ParseAge(in); err == nil {
			t.Errorf("ParseAge(%q) = %v, want an error", in, got)
		}
	}
}
