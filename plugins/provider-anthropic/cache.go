package main

import (
	"github.com/axonhq/axon/sdk"
)

// maxBreakpoints is the Messages API's limit of cache_control blocks per
// request.
const maxBreakpoints = 4

// wireCache is a cache_control value: {"type":"ephemeral"} with an
// optional ttl.
type wireCache struct {
	Type string `json:"type"`          // ephemeral
	TTL  string `json:"ttl,omitempty"` // 5m | 1h; the API's default (5m) when empty
}

// cacheControl renders a canonical breakpoint; nil for none.
func cacheControl(c sdk.Cache) (*wireCache, error) {
	switch c {
	case sdk.CacheNone:
		return nil, nil
	case sdk.CacheDefault:
		return &wireCache{Type: "ephemeral"}, nil
	case sdk.Cache5m, sdk.Cache1h:
		return &wireCache{Type: "ephemeral", TTL: string(c)}, nil
	}
	return nil, sdk.Permanentf("unknown cache breakpoint %q", c)
}

// countBreakpoints counts the cache_control markers of w. More than the
// API allows is refused: dropping one would silently change what is
// cached and billed.
func countBreakpoints(w *wireRequest) error {
	n := 0
	for _, t := range w.Tools {
		if t.CacheControl != nil {
			n++
		}
	}
	var blocks func([]wireBlock)
	blocks = func(bs []wireBlock) {
		for _, b := range bs {
			if b.CacheControl != nil {
				n++
			}
			blocks(b.Content)
		}
	}
	blocks(w.systemBlocks)
	for _, m := range w.Messages {
		blocks(m.Content)
	}
	if n > maxBreakpoints {
		return sdk.Unsupportedf("anthropic: %d cache breakpoints in one request; the Messages API allows at most %d", n, maxBreakpoints)
	}
	return nil
}
