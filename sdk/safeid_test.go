package sdk_test

import (
	"strings"
	"testing"

	"github.com/axonhq/axon/sdk"
)

func TestSafeID(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]string{
		"resp_0a1B-2.c":         "resp_0a1B-2.c",
		"":                      "",
		strings.Repeat("a", 48): strings.Repeat("a", 48),
		strings.Repeat("a", 49): "",
		"id with space":         "",
		"id/slash":              "",
		"line\nbreak":           "",
		"ünïcode":               "",
	} {
		if got := sdk.SafeID(s); got != want {
			t.Errorf("SafeID(%q) = %q, want %q", s, got, want)
		}
	}
}
