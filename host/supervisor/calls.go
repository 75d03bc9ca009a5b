package supervisor

import (
	"context"
	"errors"
	"fmt"

	"github.com/axonhq/axon/host/redact"
	"github.com/axonhq/axon/internal/pluginrpc"
	"github.com/axonhq/axon/sdk"
)

// call runs f with the running process's kind-specific client, counted as
// in flight on that process until f returns (an idle stop waits for it).
// When the process turns out to be dead, it is reaped at once, so the next
// call starts a new one even before go-plugin has noticed the exit. It
// returns the process f ran on, for masking what f returned.
func call[T any](ctx context.Context, in *Instance, f func(T) error) (*process, error) {
	p, err := in.acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer in.release(p)
	s, ok := p.service.(T)
	if !ok {
		return p, fmt.Errorf("plugin %s: is a %s plugin", in.spec.Name, p.info.Kind)
	}
	err = f(s)
	if errors.Is(err, sdk.ErrPluginExited) {
		// Says what the call saw and whether the process had exited by
		// then: a live process losing its connection is a different fault.
		in.lost(p, fmt.Sprintf("connection lost during a call (process exited: %v): %v", p.client.Exited(), p.redactErr(err)))
	}
	return p, p.redactErr(err)
}

// run is call for the calls whose result needs no masking beyond the error.
func run[T any](ctx context.Context, in *Instance, f func(T) error) error {
	_, err := call(ctx, in, f)
	return err
}

// redactor masks the block's credential in what the plugin returns.
func (p *process) redactor() *redact.Redactor {
	if p.egress == nil {
		return nil
	}
	return p.egress.Redactor()
}

// redactErr masks the credential in a plugin's error before it reaches the
// chain, the trail, the logs, the WAL or a client. The class, status and
// retry hint survive, so every decision stays the same.
func (p *process) redactErr(err error) error {
	if err == nil {
		return nil
	}
	r := p.redactor()
	if r.Empty() || r.String(err.Error()) == err.Error() {
		return err
	}
	var se *sdk.Error
	if errors.As(err, &se) {
		c := *se
		c.Message, c.Code = r.String(se.Message), r.String(se.Code)
		return &c
	}
	return errors.New(r.String(err.Error()))
}

// Generate runs a provider call on the current process. If the process
// dies during the call the error is sdk.ErrPluginExited, and the next call
// runs on a restarted process.
func (in *Instance) Generate(ctx context.Context, req *sdk.Request, out sdk.Sink) error {
	return run(ctx, in, func(p *pluginrpc.ProviderClient) error { return p.Generate(ctx, req, out) })
}

// Models lists a provider's models: none when the plugin does not implement
// sdk.ModelLister.
func (in *Instance) Models(ctx context.Context) ([]sdk.Model, error) {
	var ms []sdk.Model
	err := run(ctx, in, func(p *pluginrpc.ProviderClient) (err error) { ms, err = p.Models(ctx); return err })
	return ms, err
}

// Tools lists a tool plugin's tools.
func (in *Instance) Tools(ctx context.Context) ([]sdk.ToolSpec, error) {
	var ts []sdk.ToolSpec
	err := run(ctx, in, func(t *pluginrpc.ToolClient) (err error) { ts, err = t.Tools(ctx); return err })
	return ts, err
}

// Call runs one tool call. The result's text goes to the model and the
// WAL, so the tool's credential is masked in it, with the redactor of the
// process that ran it (by then another may be current, or none).
func (in *Instance) Call(ctx context.Context, inv sdk.Invocation) (sdk.ToolResult, error) {
	var res sdk.ToolResult
	var red *redact.Redactor
	p, err := call(ctx, in, func(t *pluginrpc.ToolClient) (err error) {
		res, err = t.Call(ctx, inv)
		return err
	})
	if p != nil {
		red = p.redactor()
	}
	if !red.Empty() {
		for i, part := range res.Content {
			if tp, ok := part.(sdk.Text); ok {
				tp.Text = red.String(tp.Text)
				res.Content[i] = tp
			}
		}
	}
	return res, err
}

// Caps describes a display.
func (in *Instance) Caps(ctx context.Context) (sdk.DisplayCaps, error) {
	var c sdk.DisplayCaps
	err := run(ctx, in, func(d *pluginrpc.DisplayClient) (err error) { c, err = d.Caps(ctx); return err })
	return c, err
}

// Show draws a frame on a display.
func (in *Instance) Show(ctx context.Context, f sdk.Frame) error {
	return run(ctx, in, func(d *pluginrpc.DisplayClient) error { return d.Show(ctx, f) })
}

// Halt sleeps a display.
func (in *Instance) Halt(ctx context.Context) error {
	return run(ctx, in, func(d *pluginrpc.DisplayClient) error { return d.Halt(ctx) })
}
