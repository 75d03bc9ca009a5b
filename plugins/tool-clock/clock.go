package main

import (
	"context"
	"time"

	"github.com/axonhq/axon/sdk"
)

// clock serves the now and convert_time tools. The zero value is ready for
// Info; Configure must run before Call.
type clock struct {
	zone *time.Location   // the configured default zone
	now  func() time.Time // injected in tests; time.Now when nil
}

var _ sdk.Tool = (*clock)(nil)

func (c *clock) Info() sdk.Info {
	return sdk.Info{Name: "clock", Kind: sdk.KindTool, Version: version, Config: schema()}
}

func (c *clock) Configure(ctx context.Context, cfg sdk.Config) error {
	loc, err := parseConfig(cfg)
	if err != nil {
		return err
	}
	c.zone = loc
	if c.now == nil {
		c.now = time.Now
	}
	return nil
}

func (c *clock) Tools(ctx context.Context) ([]sdk.ToolSpec, error) {
	return []sdk.ToolSpec{nowSpec(), convertSpec()}, nil
}

func (c *clock) Call(ctx context.Context, inv sdk.Invocation) (sdk.ToolResult, error) {
	if c.zone == nil {
		return sdk.ToolResult{}, sdk.Permanentf("clock: Call before Configure")
	}
	switch inv.Name {
	case toolNow:
		return c.callNow(inv), nil
	case toolConvert:
		return c.callConvert(inv), nil
	}
	return inv.Errorf("unknown tool %q: this plugin serves %s and %s", inv.Name, toolNow, toolConvert), nil
}

// zoneOr resolves name, or returns the configured zone when name is empty.
func (c *clock) zoneOr(name string) (*time.Location, error) {
	if name == "" {
		return c.zone, nil
	}
	return loadZone(name)
}
