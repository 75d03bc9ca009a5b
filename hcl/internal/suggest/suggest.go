// Package suggest finds the valid name a user most likely meant, for "did you
// mean" hints in configuration diagnostics. It never decides anything: a
// suggestion is only ever added to a message.
package suggest

import "github.com/agext/levenshtein"

// Name returns the candidate closest to name by edit distance, or "" when no
// candidate is close enough to be a plausible typo (distance 3 or more, the
// threshold HCL itself uses). Unlike HCL's own helper, which takes the first
// candidate under the threshold, it takes the closest; ties go to the first.
func Name(name string, candidates []string) string {
	best, bestDist := "", 3
	for _, c := range candidates {
		if d := distance(name, c); d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}

// distance is the Levenshtein distance between a and b, counted in runes,
// with the library HCL links for its own suggestions.
func distance(a, b string) int { return levenshtein.Distance(a, b, nil) }
