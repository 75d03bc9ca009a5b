package chain

import (
	"fmt"
	"strings"
)

// SplitPinned splits a CHAIN/PROVIDER model name at its first slash. ok is
// false for a plain chain name, or when either side is empty.
func SplitPinned(model string) (chainName, provider string, ok bool) {
	chainName, provider, ok = strings.Cut(model, "/")
	if !ok || chainName == "" || provider == "" {
		return model, "", false
	}
	return chainName, provider, true
}

// Pin returns a chain of the one hop of c named provider, with c's policy,
// observer, clock and rand, named "CHAIN/PROVIDER". It fails with ErrNoSuchHop
// when c has no such hop.
func (c *Chain) Pin(provider string) (*Chain, error) {
	for _, h := range c.Hops {
		if h.Name == provider {
			return &Chain{
				Name:     c.Name + "/" + provider,
				Hops:     []Hop{h},
				Policy:   c.Policy,
				Observer: c.Observer,
				Clock:    c.Clock,
				Rand:     c.Rand,
			}, nil
		}
	}
	return nil, fmt.Errorf("chain %q, provider %q: %w", c.Name, provider, ErrNoSuchHop)
}
