package session

// cost prices u at p: nil when u is nil or reports a count whose price is
// unknown, so an unpriced step never looks free.
func (p Price) cost(u *Usage) *float64 {
	if u == nil {
		return nil
	}
	var usd float64
	for _, c := range []struct {
		n     *int64
		price *float64
	}{{u.InputTokens, p.InputPerMTok}, {u.OutputTokens, p.OutputPerMTok}, {u.CacheReadTokens, p.CacheReadPerMTok}, {u.CacheWriteTokens, p.CacheWritePerMTok}} {
		if c.n == nil {
			continue
		}
		if c.price == nil {
			return nil
		}
		usd += float64(*c.n) * *c.price / 1e6
	}
	return &usd
}

// priced reports whether p can price the usual answer: input and output.
func (p Price) priced() bool { return p.InputPerMTok != nil && p.OutputPerMTok != nil }

// spend is what a run has used so far, as its model steps reported it.
type spend struct {
	tokens      int64
	costUSD     float64
	unreported  bool // a step reported no usage: token totals are a floor
	costUnknown bool // a step's cost could not be priced
}

func (s *spend) add(u *Usage, cost *float64) {
	if u == nil {
		s.unreported = true
	} else {
		s.tokens += u.total()
	}
	if cost == nil {
		s.costUnknown = true
	} else {
		s.costUSD += *cost
	}
}

// exhausted reports whether spending s breaks b, and why. A budget that
// cannot be checked (usage or prices missing) counts as spent: the run stops
// rather than spend without a bound.
func (b Budget) exhausted(s spend) (bool, string) {
	if b.Tokens != nil {
		if s.unreported {
			return true, "the provider did not report token usage, so the token budget cannot be enforced"
		}
		if s.tokens >= *b.Tokens {
			return true, "token budget spent"
		}
	}
	if b.CostUSD != nil {
		if s.costUnknown {
			return true, "a model step could not be priced, so the cost budget cannot be enforced"
		}
		if s.costUSD >= *b.CostUSD {
			return true, "cost budget spent"
		}
	}
	return false, ""
}
