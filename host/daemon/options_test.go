package daemon

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/axonhq/axon/sdk"
)

// What a plugin declares only selects among the request's own option keys
// and the sdk.Lack* names: a hostile plugin's strings never reach the
// x-axon-ignored header.
func TestUnrenderedNamesComeFromTheRequest(t *testing.T) {
	t.Parallel()
	req := &sdk.Request{
		Options:    map[string]json.RawMessage{"top_k": json.RawMessage("40"), "seed": json.RawMessage("7")},
		ToolChoice: sdk.ToolChoice{Mode: sdk.ToolChoiceRequired, Sequential: true},
		System:     []sdk.Text{{Text: "long", Cache: sdk.CacheDefault}},
	}
	for _, tc := range []struct {
		name string
		info sdk.Info
		want []string
	}{
		{"says nothing", sdk.Info{}, nil},
		{"renders all", sdk.Info{Options: []string{"top_k", "seed"}}, nil},
		{"renders none, lacks all", sdk.Info{Options: []string{}, Lacks: []string{sdk.LackSequential, sdk.LackForcedToolChoice, sdk.LackCacheBreakpoints}},
			[]string{"seed", "top_k", sdk.LackSequential, sdk.LackForcedToolChoice, sdk.LackCacheBreakpoints}},
		{"hostile strings", sdk.Info{Options: []string{"top_k", "x\r\nSet-Cookie: a=b"}, Lacks: []string{"x\r\nSet-Cookie: a=b", "sk-stolen"}},
			[]string{"seed"}},
	} {
		ctx := withUnrendered(context.Background())
		noteUnrendered(ctx, tc.info, req)
		if got := unrenderedOf(ctx); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
