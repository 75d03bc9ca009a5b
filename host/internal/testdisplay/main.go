// Command testdisplay is a display plugin for the host's tests. Like the epd
// plugin on a HAT with a power pin, putting its panel to sleep takes a while
// (the "sleep" value, default 2.5 s: longer than go-plugin waits for a
// stopping plugin): in Halt, or in Close when the panel is still awake. A
// Show wakes it. It logs each step to the host, and draws nothing.
package main

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/axonhq/axon/sdk"
	"github.com/axonhq/axon/sdk/serve"
)

type display struct {
	mu    sync.Mutex
	awake bool
	sleep time.Duration
	log   hclog.Logger
}

var schema = sdk.Schema{Attributes: []sdk.Attribute{
	{Name: "sleep", Type: "string", Default: json.RawMessage(`"2500ms"`), Description: "how long putting the panel to sleep takes"},
}}

func (d *display) Info() sdk.Info {
	return sdk.Info{Name: "testdisplay", Kind: sdk.KindDisplay, Version: "test", Config: schema}
}

func (d *display) Configure(_ context.Context, cfg sdk.Config) error {
	var c struct {
		Sleep string `json:"sleep"`
	}
	if err := cfg.Decode(&c); err != nil {
		return err
	}
	sleep := 2500 * time.Millisecond // the schema's default, for a host that sends no values
	if c.Sleep != "" {
		var err error
		if sleep, err = time.ParseDuration(c.Sleep); err != nil {
			return sdk.Permanentf("sleep: %v", err)
		}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.sleep, d.log = sleep, hclog.NewNullLogger()
	if cfg.Logger != nil {
		d.log = cfg.Logger
	}
	return nil
}

func (d *display) Caps(context.Context) (sdk.DisplayCaps, error) {
	return sdk.DisplayCaps{Width: 8, Height: 8, Mono: true}, nil
}

func (d *display) Show(context.Context, sdk.Frame) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.awake = true
	return nil
}

func (d *display) Halt(ctx context.Context) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.awake {
		select {
		case <-time.After(d.sleep):
		case <-ctx.Done():
			return ctx.Err()
		}
		d.awake = false
	}
	d.log.Info("testdisplay: halted")
	return nil
}

func (d *display) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.awake {
		d.log.Info("testdisplay: closing an awake panel")
		time.Sleep(d.sleep)
	}
	return nil
}

func main() { serve.Display(&display{}) }
