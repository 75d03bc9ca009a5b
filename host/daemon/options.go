package daemon

import (
	"context"
	"slices"
	"sync"

	"github.com/axonhq/axon/sdk"
)

// unrenderedKey holds, in a client request's context, the request options
// and features the provider of the hop that started last does not render
// (by its Info.Options and Info.Lacks): when that hop answers, the front door names them in
// x-axon-ignored, so a client learns that its top_k never reached the
// model that answered.
type unrenderedKey struct{}

type unrendered struct {
	mu    sync.Mutex
	names []string
}

// withUnrendered gives ctx, one client request's, a place for the
// options its hops leave out.
func withUnrendered(ctx context.Context) context.Context {
	return context.WithValue(ctx, unrenderedKey{}, &unrendered{})
}

// noteUnrendered records, for the hop about to run req, the options req
// sets that info does not list; nothing when the plugin does not say
// (Info.Options nil). Each hop replaces what the one before it noted: the
// hop that commits is the last to have started.
func noteUnrendered(ctx context.Context, info sdk.Info, req *sdk.Request) {
	u, _ := ctx.Value(unrenderedKey{}).(*unrendered)
	if u == nil {
		return
	}
	var names []string
	if info.Options != nil {
		for k := range req.Options {
			if !slices.Contains(info.Options, k) {
				names = append(names, k)
			}
		}
		slices.Sort(names)
	}
	for _, lack := range info.Lacks {
		if uses(req, lack) {
			names = append(names, lack)
		}
	}
	u.mu.Lock()
	u.names = names
	u.mu.Unlock()
}

// uses reports whether req asks for feature, one of the sdk.Lack* names.
func uses(req *sdk.Request, feature string) bool {
	switch feature {
	case sdk.LackSequential:
		return req.ToolChoice.Sequential
	case sdk.LackForcedToolChoice:
		return req.ToolChoice.Mode == sdk.ToolChoiceRequired || req.ToolChoice.Mode == sdk.ToolChoiceTool
	case sdk.LackCacheBreakpoints:
		return hasBreakpoint(req)
	}
	return false
}

// hasBreakpoint reports whether any part or tool spec of req carries a
// cache breakpoint.
func hasBreakpoint(req *sdk.Request) bool {
	for _, t := range req.System {
		if t.Cache != sdk.CacheNone {
			return true
		}
	}
	for _, t := range req.Tools {
		if t.Cache != sdk.CacheNone {
			return true
		}
	}
	for _, m := range req.Messages {
		if partsCached(m.Parts) {
			return true
		}
	}
	return false
}

func partsCached(parts []sdk.Part) bool {
	for _, p := range parts {
		var c sdk.Cache
		switch p := p.(type) {
		case sdk.Text:
			c = p.Cache
		case sdk.Image:
			c = p.Cache
		case sdk.Document:
			c = p.Cache
		case sdk.ToolCall:
			c = p.Cache
		case sdk.ToolResult:
			if partsCached(p.Content) {
				return true
			}
			c = p.Cache
		}
		if c != sdk.CacheNone {
			return true
		}
	}
	return false
}

// unrenderedOf is what the last hop started noted.
func unrenderedOf(ctx context.Context) []string {
	u, _ := ctx.Value(unrenderedKey{}).(*unrendered)
	if u == nil {
		return nil
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.names
}
