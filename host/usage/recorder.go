package usage

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/axonhq/axon/host/chain"
)

// Meter is told about every fact as it is recorded (before the queue, so
// a dropped fact is counted too) and about every fact the store lost. It
// runs on the turn's goroutine: it must return at once. The daemon's
// Prometheus metrics are one.
type Meter interface {
	Fact(f Fact)
	Dropped(n int)
}

// Options tune a Recorder; the zero value is what axon runs with.
type Options struct {
	Queue int // facts waiting to be written; more are dropped. 4096
	Batch int // most facts in one transaction. 256
	// Linger is how long the writer waits after a batch's first fact for
	// more before it writes a batch that is not full, so a busy front door
	// commits once per Linger instead of once every few requests. 250ms;
	// negative writes at once. Flush and Close never wait for it.
	Linger time.Duration
	Meter  Meter        // optional
	Logger hclog.Logger // optional: drops and write failures, at most once per LogEvery
	Now    func() time.Time
	// LogEvery bounds how often drops and write failures are logged, with
	// the count since the last line. 1m.
	LogEvery time.Duration
}

func (o Options) withDefaults() Options {
	if o.Queue <= 0 {
		o.Queue = 4096
	}
	if o.Batch <= 0 {
		o.Batch = 256
	}
	if o.Linger == 0 {
		o.Linger = 250 * time.Millisecond
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = hclog.NewNullLogger()
	}
	if o.LogEvery <= 0 {
		o.LogEvery = time.Minute
	}
	return o
}

// Recorder takes facts off the request path: Record puts a fact on a
// bounded queue and returns; one goroutine writes the queue to the Writer
// in batches, each one transaction. Recording never blocks, slows or fails
// a turn: when the queue is full, or a write fails, the facts are dropped,
// counted (Dropped, the Meter) and logged at a bounded rate.
//
// Lifecycle: NewRecorder (no goroutine yet), Start, Record as often as
// needed, Close (drains what is queued).
type Recorder struct {
	w      Writer
	prices *Prices
	opts   Options
	// queue holds pointers: a channel of Facts keeps Queue of them in
	// one buffer (1.2 MB at 4096), resident once the ring has gone round
	// once, however short the queue is after.
	queue chan *Fact

	dropped atomic.Uint64
	started atomic.Bool
	closed  atomic.Bool
	stop    chan struct{}
	done    chan struct{}
	flush   chan chan struct{}

	logNext atomic.Int64  // Unix nanoseconds before which no drop is logged
	logDrop atomic.Uint64 // dropped since the last log line
	logMu   sync.Mutex
	logErr  error // the last write failure since then
}

// NewRecorder returns a recorder writing to w, pricing with prices.
func NewRecorder(w Writer, prices *Prices, opts Options) *Recorder {
	opts = opts.withDefaults()
	return &Recorder{w: w, prices: prices, opts: opts, queue: make(chan *Fact, opts.Queue),
		stop: make(chan struct{}), done: make(chan struct{}), flush: make(chan chan struct{})}
}

// Start runs the writer goroutine until Close.
func (r *Recorder) Start() {
	if r.started.Swap(true) {
		return
	}
	go r.run()
}

// Record queues f for the store. It never blocks.
func (r *Recorder) Record(f Fact) {
	if r.opts.Meter != nil {
		r.opts.Meter.Fact(f)
	}
	if r.closed.Load() {
		r.drop(1, errClosed)
		return
	}
	select {
	case r.queue <- &f:
	default:
		r.drop(1, nil)
	}
}

// Dropped is how many facts never reached the store.
func (r *Recorder) Dropped() uint64 { return r.dropped.Load() }

// Prices are the prices the recorder prices facts with.
func (r *Recorder) Prices() *Prices { return r.prices }

// Close stops taking facts from the queue once it is empty, or once ctx
// ends (what is left is dropped and counted), and waits for the last
// write. Record after Close drops.
func (r *Recorder) Close(ctx context.Context) {
	if r.closed.Swap(true) {
		return
	}
	r.Start()
	close(r.stop)
	select {
	case <-r.done:
	case <-ctx.Done():
		// The writer is stuck in a write: leave it, it ends with the process.
		r.drop(len(r.queue), ctx.Err())
	}
}

var errClosed = errors.New("the recorder is closed")

// Flush returns once every fact recorded before it was called is written
// (or dropped), or when ctx ends. Tests and `axon stats` in the same
// process use it; nothing on the request path does.
func (r *Recorder) Flush(ctx context.Context) error {
	done := make(chan struct{})
	select {
	case r.flush <- done:
	case <-r.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (r *Recorder) run() {
	defer close(r.done)
	batch := make([]Fact, 0, r.opts.Batch)
	for {
		select {
		case f := <-r.queue:
			batch = append(batch[:0], *f)
		case done := <-r.flush:
			r.drain(batch[:0])
			close(done)
			continue
		case <-r.stop:
			r.drain(batch[:0])
			return
		}
		batch, flushed, stopping := r.linger(batch)
		r.write(batch)
		switch {
		case stopping:
			r.drain(batch[:0])
			return
		case flushed != nil:
			r.drain(batch[:0])
			close(flushed)
		}
	}
}

// linger adds to batch what the queue holds, then what it receives until
// the batch is full or Linger has passed. A Flush or Close meanwhile ends
// the wait: linger returns the Flush's channel, or stopping, for run to
// answer once the batch is written.
func (r *Recorder) linger(batch []Fact) (_ []Fact, flushed chan struct{}, stopping bool) {
	batch = r.fill(batch)
	if len(batch) >= r.opts.Batch || r.opts.Linger < 0 {
		return batch, nil, false
	}
	t := time.NewTimer(r.opts.Linger)
	defer t.Stop()
	for len(batch) < r.opts.Batch {
		select {
		case f := <-r.queue:
			batch = append(batch, *f)
		case <-t.C:
			return batch, nil, false
		case done := <-r.flush:
			return r.fill(batch), done, false
		case <-r.stop:
			return r.fill(batch), nil, true
		}
	}
	return batch, nil, false
}

// fill adds what is already queued to batch, up to a full batch.
func (r *Recorder) fill(batch []Fact) []Fact {
	for len(batch) < r.opts.Batch {
		select {
		case f := <-r.queue:
			batch = append(batch, *f)
		default:
			return batch
		}
	}
	return batch
}

// drain writes everything still queued.
func (r *Recorder) drain(batch []Fact) {
	for {
		batch = r.fill(batch[:0])
		if len(batch) == 0 {
			return
		}
		r.write(batch)
	}
}

func (r *Recorder) write(batch []Fact) {
	// A write is bounded so a wedged disk cannot hold facts for ever; the
	// queue fills and drops meanwhile, which is the point.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := r.w.Write(ctx, batch); err != nil {
		r.drop(len(batch), err)
	}
}

// drop counts n facts lost and logs them, at most once per LogEvery. On
// the request path (a full queue) it takes no lock.
func (r *Recorder) drop(n int, err error) {
	if n <= 0 {
		return
	}
	r.dropped.Add(uint64(n))
	if r.opts.Meter != nil {
		r.opts.Meter.Dropped(n)
	}
	r.logDrop.Add(uint64(n))
	if err != nil {
		r.logMu.Lock()
		r.logErr = err
		r.logMu.Unlock()
	}
	now := r.opts.Now()
	next := r.logNext.Load()
	if now.UnixNano() < next || !r.logNext.CompareAndSwap(next, now.Add(r.opts.LogEvery).UnixNano()) {
		return
	}
	args := []any{"dropped", r.logDrop.Swap(0), "total_dropped", r.dropped.Load()}
	r.logMu.Lock()
	last := r.logErr
	r.logErr = nil
	r.logMu.Unlock()
	if last != nil {
		args = append(args, "error", last)
	} else {
		args = append(args, "reason", "queue full")
	}
	r.opts.Logger.Warn("usage facts dropped", args...)
}

// Observer returns the chain observer that records a fact for every Run
// of the chains src runs, when the Run ends.
func (r *Recorder) Observer(src Source) chain.Observer { return r.PricedObserver(src, r.prices) }

// PricedObserver is Observer pricing with prices instead of the
// recorder's: the chains of a reloaded configuration price with its own.
func (r *Recorder) PricedObserver(src Source, prices *Prices) chain.Observer {
	return observer{r: r, src: src, prices: prices}
}

// observer is a chain.Observer; it holds nothing per turn (turns of one
// chain run concurrently), only what OnTurnEnd's Result carries.
type observer struct {
	chain.NopObserver
	r      *Recorder
	src    Source
	prices *Prices
}

func (o observer) OnTurnEnd(_ string, res *chain.Result, err error) {
	now := o.r.opts.Now()
	start := now
	if res != nil {
		start = now.Add(-res.Elapsed)
	}
	o.r.Record(factOf(o.src, start, res, err, o.prices))
}
