package faces

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/axonhq/axon/host/chain"
	"github.com/axonhq/axon/sdk"
)

// Display is what a face needs of a display plugin instance.
type Display interface {
	Name() string
	Caps(ctx context.Context) (sdk.DisplayCaps, error)
	Show(ctx context.Context, f sdk.Frame) error
}

// Options tunes the faces.
type Options struct {
	HappyFor    time.Duration // how long happy shows before idle; default 3s
	ShowTimeout time.Duration // bound on one Show call; default 20s (E-Ink full refresh is slow)
	MinInterval time.Duration // floor between two frames on any panel; the panel's own caps may raise it
	Clock       chain.Clock   // optional: nil is the system clock
	// Shown, when set, learns each frame a display showed, with the caps
	// it reported (the panel renders the face from them). It runs on the
	// display's worker and must not block.
	Shown func(display string, f sdk.Frame, caps sdk.DisplayCaps)
}

// Faces is a chain.Observer that drives displays.
type Faces struct {
	chain.NopObserver
	opts    Options
	logger  hclog.Logger
	workers []*worker

	mu   sync.Mutex
	idle chain.Timer
	stop context.CancelFunc
	wg   sync.WaitGroup
}

var _ chain.Observer = (*Faces)(nil)

// New starts one worker per display and shows the idle face.
func New(displays []Display, logger hclog.Logger, opts Options) *Faces {
	if opts.HappyFor <= 0 {
		opts.HappyFor = 3 * time.Second
	}
	if opts.ShowTimeout <= 0 {
		opts.ShowTimeout = 20 * time.Second
	}
	if opts.Clock == nil {
		opts.Clock = chain.SystemClock()
	}
	ctx, cancel := context.WithCancel(context.Background())
	f := &Faces{opts: opts, logger: logger.Named("faces"), stop: cancel}
	for _, d := range displays {
		w := &worker{display: d, wake: make(chan struct{}, 1), opts: opts, logger: f.logger.With("display", d.Name())}
		f.workers = append(f.workers, w)
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			w.run(ctx)
		}()
	}
	f.show(sdk.Frame{Expression: sdk.ExprIdle})
	return f
}

// Close stops the workers; a Show in progress is cancelled.
func (f *Faces) Close() {
	f.mu.Lock()
	if f.idle != nil {
		f.idle.Stop()
	}
	f.mu.Unlock()
	f.stop()
	f.wg.Wait()
}

// show hands frame to every worker; it never blocks.
func (f *Faces) show(frame sdk.Frame) {
	for _, w := range f.workers {
		w.offer(frame)
	}
}

func (f *Faces) cancelIdle() {
	if f.idle != nil {
		f.idle.Stop()
		f.idle = nil
	}
}

// OnTurnStart shows thinking.
func (f *Faces) OnTurnStart(chainName string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cancelIdle()
	f.show(sdk.Frame{Expression: sdk.ExprThinking, Text: "thinking…", Status: map[string]string{"chain": chainName}})
}

// OnFirstContent shows speaking, naming the provider that answers.
func (f *Faces) OnFirstContent(chainName, provider string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cancelIdle()
	f.show(sdk.Frame{Expression: sdk.ExprSpeaking, Status: map[string]string{"chain": chainName, "provider": provider}})
}

// OnTurnEnd shows happy (then idle), degraded or sad.
func (f *Faces) OnTurnEnd(chainName string, res *chain.Result, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cancelIdle()
	status := map[string]string{"chain": chainName}
	if res != nil && res.Provider != "" {
		status["provider"] = res.Provider
	}
	var exhausted *chain.ExhaustedError
	var committed *chain.CommittedError
	switch {
	case err == nil:
		f.show(sdk.Frame{Expression: sdk.ExprHappy, Status: status})
		f.idle = f.opts.Clock.AfterFunc(f.opts.HappyFor, func() { f.show(sdk.Frame{Expression: sdk.ExprIdle, Status: status}) })
	case errors.As(err, &exhausted):
		delete(status, "provider")
		f.show(sdk.Frame{Expression: sdk.ExprDegraded, Text: "can't think right now", Status: status})
	case errors.As(err, &committed):
		f.show(sdk.Frame{Expression: sdk.ExprSad, Text: "lost my train of thought", Status: status})
	default: // the caller went away: nothing to be sad about
		f.show(sdk.Frame{Expression: sdk.ExprIdle, Status: status})
	}
}
