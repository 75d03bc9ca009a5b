package suggest

import "testing"

func TestName(t *testing.T) {
	t.Parallel()
	candidates := []string{"base_url", "model", "max_tokens"}
	tests := []struct {
		name, in, want string
	}{
		{"one typo", "modle", "model"},
		{"missing letter", "base_ur", "base_url"},
		{"exact", "model", "model"},
		{"far away", "temperature", ""},
		{"empty input", "", ""},
		{"three edits is too far", "modelxyz", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := Name(tc.in, candidates); got != tc.want {
				t.Errorf("Name(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestNameTiesGoToTheFirstCandidate(t *testing.T) {
	t.Parallel()
	if got := Name("a", []string{"ab", "ac"}); got != "ab" {
		t.Errorf("Name = %q, want %q", got, "ab")
	}
}

func TestDistance(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"abc", "", 3},
		{"kitten", "sitting", 3},
		{"grüße", "grüsse", 2},
	}
	for _, tc := range tests {
		if got := distance(tc.a, tc.b); got != tc.want {
			t.Errorf("distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}
