package usage

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/axonhq/axon/host/chain"
	"github.com/axonhq/axon/sdk"
)

// blockedWriter holds every Write until release is closed.
type blockedWriter struct {
	entered chan struct{} // one value per Write begun
	release chan struct{}
	memWriter
}

func newBlockedWriter() *blockedWriter {
	return &blockedWriter{entered: make(chan struct{}, 1000), release: make(chan struct{})}
}

func (w *blockedWriter) Write(ctx context.Context, facts []Fact) error {
	w.entered <- struct{}{}
	<-w.release
	return w.memWriter.Write(ctx, facts)
}

type countingMeter struct {
	facts, dropped atomic.Int64
}

func (m *countingMeter) Fact(Fact)     { m.facts.Add(1) }
func (m *countingMeter) Dropped(n int) { m.dropped.Add(int64(n)) }

// syncBuffer is a log sink safe for the writer goroutine and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// A full queue drops and counts instead of waiting; the meter still sees
// every fact; the drops are logged once per interval, with their count.
func TestRecordDropsWhenTheQueueIsFull(t *testing.T) {
	t.Parallel()
	w := newBlockedWriter()
	m := &countingMeter{}
	var log syncBuffer
	rec := NewRecorder(w, nil, Options{Queue: 4, Batch: 2, Meter: m, LogEvery: time.Hour,
		Logger: hclog.New(&hclog.LoggerOptions{Output: &log, Level: hclog.Warn})})
	rec.Start()
	rec.Record(Fact{Chain: "first"})
	<-w.entered // the writer holds the first fact and is stuck
	for i := range 10 {
		rec.Record(Fact{Chain: string(rune('a' + i))}) // 4 fit in the queue, 6 do not
	}
	if got := rec.Dropped(); got != 6 {
		t.Errorf("Dropped = %d, want 6", got)
	}
	if m.facts.Load() != 11 || m.dropped.Load() != 6 {
		t.Errorf("meter: %d facts, %d dropped; want 11, 6", m.facts.Load(), m.dropped.Load())
	}
	if n := strings.Count(log.String(), "usage facts dropped"); n != 1 {
		t.Errorf("%d log lines for 6 drops within the interval, want 1:\n%s", n, log.String())
	}
	close(w.release)
	rec.Close(context.Background())
	if len(w.facts) != 5 {
		t.Errorf("%d facts written, want the 5 kept", len(w.facts))
	}
	rec.Record(Fact{})
	if rec.Dropped() != 7 {
		t.Errorf("a fact recorded after Close: Dropped = %d, want 7", rec.Dropped())
	}
}

// Flush waits for what was recorded before it, not for a Close.
func TestFlush(t *testing.T) {
	t.Parallel()
	w := &memWriter{}
	rec := NewRecorder(w, nil, Options{})
	rec.Start()
	defer rec.Close(context.Background())
	for range 3 {
		rec.Record(Fact{})
	}
	if err := rec.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	w.mu.Lock()
	n := len(w.facts)
	w.mu.Unlock()
	if n != 3 {
		t.Errorf("%d facts written after Flush, want 3", n)
	}
}

type failingWriter struct{}

func (failingWriter) Write(context.Context, []Fact) error { return errors.New("disk full") }

func TestFailedWritesAreCountedAndLogged(t *testing.T) {
	t.Parallel()
	var log syncBuffer
	rec := NewRecorder(failingWriter{}, nil, Options{Logger: hclog.New(&hclog.LoggerOptions{Output: &log})})
	rec.Start()
	rec.Record(Fact{})
	rec.Record(Fact{})
	rec.Close(context.Background())
	if rec.Dropped() != 2 {
		t.Errorf("Dropped = %d, want 2", rec.Dropped())
	}
	if !strings.Contains(log.String(), "disk full") {
		t.Errorf("the write failure is not logged:\n%s", log.String())
	}
}

// Close gives up on a writer that does not return once ctx ends, and
// counts what it leaves in the queue.
func TestCloseIsBounded(t *testing.T) {
	t.Parallel()
	w := newBlockedWriter()
	rec := NewRecorder(w, nil, Options{})
	rec.Start()
	rec.Record(Fact{})
	<-w.entered
	rec.Record(Fact{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rec.Close(ctx)
	if rec.Dropped() != 1 {
		t.Errorf("Dropped = %d, want the 1 still queued", rec.Dropped())
	}
	close(w.release)
}

// slowWriter takes delay for every batch: a store on a slow disk.
type slowWriter struct{ delay time.Duration }

func (w slowWriter) Write(ctx context.Context, _ []Fact) error {
	select {
	case <-time.After(w.delay):
	case <-ctx.Done():
	}
	return nil
}

// BenchmarkRecordUnderLoad runs turns back to back through a chain whose
// provider answers at once (far more turns a second than any store keeps
// up with) and records each turn's fact: without a recorder, into SQLite,
// into a store that takes 50 ms a batch (a slow SD card), and into a queue
// that is always full (a store that never returns). A turn's latency
// (ns/op, p50-ns, p99-ns) must not change with the store; drops/op says
// how many facts the store could not take instead.
//
//	go test ./host/usage/ -run '^$' -bench RecordUnderLoad -benchtime 20000x -count 3
func BenchmarkRecordUnderLoad(b *testing.B) {
	prices, err := NewPrices(parseConfig(b, factConfig))
	if err != nil {
		b.Fatal(err)
	}
	full := newBlockedWriter()
	defer close(full.release)
	store, _ := openStore(b)
	for _, bc := range []struct {
		name string
		w    Writer // nil: no recorder
		opts Options
	}{
		{name: "none"},
		{name: "sqlite", w: store},
		{name: "slow-store", w: slowWriter{50 * time.Millisecond}, opts: Options{Queue: 64, Batch: 16}},
		{name: "full-queue", w: full, opts: Options{Queue: 1}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			// The daemon's chains always have observers (metrics, the turn
			// log): without a recorder the chain has one that does nothing.
			c := &chain.Chain{Name: "default", Observer: chain.NopObserver{},
				Hops: []chain.Hop{{Name: "glm", Provider: answer("glm-4.6", &sdk.Usage{InputTokens: sdk.Tokens(100), OutputTokens: sdk.Tokens(10)})}}}
			var rec *Recorder
			if bc.w != nil {
				rec = NewRecorder(bc.w, prices, bc.opts)
				rec.Start()
				c.Observer = rec.Observer(SourceOpenAI)
			}
			req := &sdk.Request{Messages: []sdk.Message{{Role: sdk.RoleUser, Parts: []sdk.Part{sdk.Text{Text: "hi"}}}}}
			lat := make([]time.Duration, b.N)
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				t0 := time.Now()
				if _, err := c.Run(context.Background(), req, discard{}, nil); err != nil {
					b.Fatal(err)
				}
				lat[i] = time.Since(t0)
			}
			b.StopTimer()
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2]), "p50-ns")
			b.ReportMetric(float64(lat[len(lat)*99/100]), "p99-ns")
			if rec != nil {
				b.ReportMetric(float64(rec.Dropped())/float64(b.N), "drops/op")
				ctx, cancel := context.WithTimeout(context.Background(), time.Second)
				rec.Close(ctx)
				cancel()
			}
		})
	}
}

// batchWriter records the size of every Write and signals each one.
type batchWriter struct {
	mu      sync.Mutex
	sizes   []int
	written chan struct{}
}

func newBatchWriter() *batchWriter { return &batchWriter{written: make(chan struct{}, 100)} }

func (w *batchWriter) Write(_ context.Context, facts []Fact) error {
	w.mu.Lock()
	w.sizes = append(w.sizes, len(facts))
	w.mu.Unlock()
	w.written <- struct{}{}
	return nil
}

func (w *batchWriter) batches() []int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.sizes)
}

func (w *batchWriter) waitWrite(t *testing.T) {
	t.Helper()
	select {
	case <-w.written:
	case <-time.After(10 * time.Second): // hang guard
		t.Fatal("no write")
	}
}

// Facts that arrive while the writer lingers go in the same transaction;
// Flush ends the wait at once.
func TestLingerCoalescesFacts(t *testing.T) {
	t.Parallel()
	w := newBatchWriter()
	rec := NewRecorder(w, nil, Options{Linger: time.Hour})
	rec.Start()
	defer rec.Close(context.Background())
	for range 5 {
		rec.Record(Fact{})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second) // hang guard
	defer cancel()
	if err := rec.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if got := w.batches(); !slices.Equal(got, []int{5}) {
		t.Errorf("batches %v, want one of 5", got)
	}
}

// A full batch is written without waiting out Linger, and a batch that is
// not full is written once Linger has passed.
func TestLingerEnds(t *testing.T) {
	t.Parallel()
	w := newBatchWriter()
	rec := NewRecorder(w, nil, Options{Linger: time.Hour, Batch: 3})
	rec.Start()
	defer rec.Close(context.Background())
	for range 3 {
		rec.Record(Fact{})
	}
	w.waitWrite(t)
	if got := w.batches(); !slices.Equal(got, []int{3}) {
		t.Errorf("batches %v, want one full batch of 3", got)
	}

	w = newBatchWriter()
	rec = NewRecorder(w, nil, Options{Linger: 10 * time.Millisecond})
	rec.Start()
	defer rec.Close(context.Background())
	rec.Record(Fact{})
	w.waitWrite(t)
	if got := w.batches(); !slices.Equal(got, []int{1}) {
		t.Errorf("batches %v, want one of 1", got)
	}
}

// Close while the writer lingers writes what it holds: nothing is dropped.
func TestCloseWhileLingering(t *testing.T) {
	t.Parallel()
	w := newBatchWriter()
	rec := NewRecorder(w, nil, Options{Linger: time.Hour})
	rec.Start()
	rec.Record(Fact{})
	rec.Record(Fact{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second) // hang guard
	defer cancel()
	rec.Close(ctx)
	if got, n := w.batches(), rec.Dropped(); !slices.Equal(got, []int{2}) || n != 0 {
		t.Errorf("batches %v, %d dropped; want one of 2, none dropped", got, n)
	}
}
