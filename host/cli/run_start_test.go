package cli

import (
	"bytes"
	"context"
	"testing"

	"github.com/axonhq/axon/host/session"
)

// startingHost is a daemon whose start request is answered after the
// client's Ctrl-C: it admits the run, unless the request itself was given
// up on, as an HTTP client's is when its context ends.
type startingHost struct {
	sessionHost
	interrupt context.CancelFunc
}

func (h startingHost) Send(ctx context.Context, key session.Key, p session.Params) (session.Admitted, error) {
	h.interrupt() // Ctrl-C while the start is on its way
	if err := ctx.Err(); err != nil {
		return session.Admitted{}, err
	}
	return session.Admitted{SessionID: key.ID(), RunID: "run_1", Status: session.StatusRunning}, nil
}

// TestCtrlCWhileARunStarts: an interrupt that comes while the daemon is
// admitting the run still cancels that run: the start is not cut short
// (the daemon may have admitted it), and the run it names is the one
// handed to the interrupt.
func TestCtrlCWhileARunStarts(t *testing.T) {
	t.Parallel()
	ctx, interrupt := context.WithCancel(context.Background())
	defer interrupt()
	var stderr bytes.Buffer
	g := &globals{env: env{stderr: &stderr}}
	f := runFlags{session: "s1"}
	var cancelled string
	err := g.drive(ctx, startingHost{interrupt: interrupt}, session.Key{Session: "s1"}, f, "hi", g.newRunPrinter(f), nil,
		func(_ sessionHost, adm session.Admitted, _ *runPrinter) error {
			cancelled = adm.RunID
			return nil
		})
	if err != nil || cancelled != "run_1" {
		t.Fatalf("drive = %v, run handed to the interrupt %q; want run_1 cancelled; stderr:\n%s", err, cancelled, stderr.String())
	}
}
