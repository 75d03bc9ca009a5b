package main

import (
	"context"
	"net/http"

	"github.com/axonhq/axon/sdk"
)

// fetcher serves the fetch tool. The zero value is ready for Info;
// Configure must run before Call. After Configure it is read-only, so calls
// may run concurrently.
type fetcher struct {
	set    settings
	client *http.Client // the host's egress; never a client of our own
}

var _ sdk.Tool = (*fetcher)(nil)

func (f *fetcher) Info() sdk.Info {
	return sdk.Info{Name: "fetch", Kind: sdk.KindTool, Version: version, Config: schema()}
}

func (f *fetcher) Configure(ctx context.Context, cfg sdk.Config) error {
	set, err := parseConfig(cfg)
	if err != nil {
		return err
	}
	if cfg.Egress == nil {
		return sdk.Permanentf("fetch: no egress: the plugin has no other way to reach the network")
	}
	f.set = set
	f.client = sdk.HTTPClient(cfg.Egress)
	f.client.CheckRedirect = f.checkRedirect
	return nil
}

func (f *fetcher) Tools(ctx context.Context) ([]sdk.ToolSpec, error) {
	return []sdk.ToolSpec{fetchSpec()}, nil
}

func (f *fetcher) Call(ctx context.Context, inv sdk.Invocation) (sdk.ToolResult, error) {
	if f.client == nil {
		return sdk.ToolResult{}, sdk.Permanentf("fetch: Call before Configure")
	}
	if inv.Name != toolFetch {
		return inv.Errorf("unknown tool %q: this plugin serves %s", inv.Name, toolFetch), nil
	}
	return f.callFetch(ctx, inv)
}
