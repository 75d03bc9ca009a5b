package supervisor

import (
	"context"
	"errors"
	"fmt"

	"github.com/axonhq/axon/sdk/pluginrpc"
	"github.com/axonhq/axon/sdk/spec"
)

// call runs f with the running process's kind-specific client. When the
// process turns out to be dead, it is reaped at once, so the next call
// starts a new one even before go-plugin has noticed the exit.
func call[T any](ctx context.Context, in *Instance, f func(T) error) error {
	p, err := in.ensure(ctx)
	if err != nil {
		return err
	}
	s, ok := p.service.(T)
	if !ok {
		return fmt.Errorf("plugin %s: is a %s plugin", in.spec.Name, p.info.Kind)
	}
	err = f(s)
	if errors.Is(err, spec.ErrPluginExited) {
		in.lost(p, "connection lost during a call")
	}
	return err
}

// Generate runs a provider call on the current process. If the process
// dies during the call the error is spec.ErrPluginExited, and the next call
// runs on a restarted process.
func (in *Instance) Generate(ctx context.Context, req *spec.Request, out spec.Sink) error {
	return call(ctx, in, func(p *pluginrpc.ProviderClient) error { return p.Generate(ctx, req, out) })
}

// Models lists a provider's models.
func (in *Instance) Models(ctx context.Context) ([]spec.Model, error) {
	var ms []spec.Model
	err := call(ctx, in, func(p *pluginrpc.ProviderClient) (err error) { ms, err = p.Models(ctx); return err })
	return ms, err
}

// Tools lists a tool plugin's tools.
func (in *Instance) Tools(ctx context.Context) ([]spec.ToolSpec, error) {
	var ts []spec.ToolSpec
	err := call(ctx, in, func(t *pluginrpc.ToolClient) (err error) { ts, err = t.Tools(ctx); return err })
	return ts, err
}

// Call runs one tool call.
func (in *Instance) Call(ctx context.Context, inv spec.Invocation) (spec.ToolResult, error) {
	var res spec.ToolResult
	err := call(ctx, in, func(t *pluginrpc.ToolClient) (err error) { res, err = t.Call(ctx, inv); return err })
	return res, err
}

// Caps describes a display.
func (in *Instance) Caps(ctx context.Context) (spec.DisplayCaps, error) {
	var c spec.DisplayCaps
	err := call(ctx, in, func(d *pluginrpc.DisplayClient) (err error) { c, err = d.Caps(ctx); return err })
	return c, err
}

// Show draws a frame on a display.
func (in *Instance) Show(ctx context.Context, f spec.Frame) error {
	return call(ctx, in, func(d *pluginrpc.DisplayClient) error { return d.Show(ctx, f) })
}

// Halt sleeps a display.
func (in *Instance) Halt(ctx context.Context) error {
	return call(ctx, in, func(d *pluginrpc.DisplayClient) error { return d.Halt(ctx) })
}
