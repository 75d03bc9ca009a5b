package supervisor

import (
	"context"
	"fmt"

	"github.com/hashicorp/go-plugin"

	"github.com/axonhq/axon/internal/pluginrpc"
	"github.com/axonhq/axon/sdk"
)

// Check runs on info, an Info this instance's binary declared (from
// Inspect, or kept from an earlier one), the checks every start runs before
// Configure: the SDK API (ErrAPIVersion), the kind (ErrKind), the block
// against the declared schema (the error of Spec.Values) and where the
// plugin asks for its credential. It starts nothing.
func (in *Instance) Check(info sdk.Info) error {
	_, err := in.accept(info)
	return err
}

// Inspect starts a process of this instance as a start would (same jail,
// same sha256 pin), asks for its Info and stops it. Configure is never
// called: the plugin opens no hardware and gets no egress, so a display
// draws nothing. The Info is what the binary declares; Check says whether
// this block fits it. The running process, if any, is left alone.
func (in *Instance) Inspect(ctx context.Context) (sdk.Info, error) {
	in.mu.Lock()
	closed := in.closed
	in.mu.Unlock()
	if closed {
		return sdk.Info{}, in.errClosed()
	}
	l, err := newLaunch(in.spec, in.ids, in.logger, in.opts)
	if err != nil {
		return sdk.Info{}, fmt.Errorf("plugin %s: %w", in.spec.Name, err)
	}
	ctx, cancel := context.WithTimeout(ctx, in.opts.StartTimeout)
	defer cancel()
	info, err := l.info(ctx, in.spec)
	if err != nil {
		return sdk.Info{}, fmt.Errorf("plugin %s: %w", in.spec.Name, err)
	}
	return info, nil
}

// info starts the process, asks for its Info and kills it: nothing is
// configured and no egress is served.
//
// It runs without go-plugin's AutoMTLS, which is about half of a plugin's
// start (a P-521 key and certificate on each side): nothing secret crosses
// this connection, it lives in the host-private socket directory, and the
// Info it returns is never trusted (every start runs under AutoMTLS and
// checks the live Info again before Configure).
func (l *launch) info(ctx context.Context, sp Spec) (sdk.Info, error) {
	l.cfg.AutoMTLS = false
	client := plugin.NewClient(l.cfg)
	defer client.Kill()
	rpc, err := client.Client()
	l.started()
	if err != nil {
		return sdk.Info{}, fmt.Errorf("start %s: %w", sp.Path, l.explain(sp.Name, err))
	}
	raw, err := rpc.Dispense(pluginrpc.NameBase)
	if err != nil {
		return sdk.Info{}, fmt.Errorf("dispense base: %w", err)
	}
	info, err := raw.(*pluginrpc.BaseClient).Info(ctx)
	if err != nil {
		return sdk.Info{}, fmt.Errorf("info: %w", err)
	}
	return info, nil
}
