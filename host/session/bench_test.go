package session

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/axonhq/axon/host/chain"
	"github.com/axonhq/axon/sdk"
)

// BenchmarkIntent measures the durable intent of a tool dispatch as the
// loop commits it: encode the ToolDispatchIntent records, one write and one
// fdatasync (host/wal), fold. Each iteration first commits a model step
// asking for the calls (not in the latency figures), then times the
// intents' commit: records/s is intents made durable per second of intent
// commits, p50/p99 the latency of one commit. calls=4 is a step with four
// parallel calls: their intents share one write and one fdatasync. Set
// TMPDIR to choose the disk.
func BenchmarkIntent(b *testing.B) {
	for _, n := range []int{1, 4} {
		b.Run(fmt.Sprintf("calls=%d", n), func(b *testing.B) {
			m, err := New(Options{Dir: b.TempDir(), Chains: oneHop(&model{}), LookupEnv: func(string) (string, bool) { return "", false }})
			if err != nil {
				b.Fatal(err)
			}
			defer m.Shutdown(context.Background())
			a, err := m.acquire(testKey.ID(), &testKey)
			if err != nil {
				b.Fatal(err)
			}
			defer m.release(a)
			tools := []FrozenTool{{Block: "notes", Name: "append_note", SideEffect: sdk.SideEffectUnsafe}}
			if err := a.exec(func() error {
				_, err := a.commit(Record{Type: RecRunStarted, RunID: "r", RunStarted: &RunStarted{IdempotencyKey: "k", Prompt: "p", Chain: "default", MaxTurns: maxMaxTurns, Tools: tools}})
				return err
			}); err != nil {
				b.Fatal(err)
			}
			var lat []time.Duration
			step, run := 0, "r"
			for b.Loop() {
				step++
				parts := make([]sdk.Part, n)
				intents := make([]Record, n)
				for i := range n {
					id := fmt.Sprintf("call_%d_%d", step, i)
					parts[i] = sdk.ToolCall{ID: id, Name: "append_note", Input: []byte(`{"note":"log","text":"a short note of about sixty bytes, like a pet would keep"}`)}
					intents[i] = Record{Type: RecToolDispatch, RunID: run, Intent: &ToolIntent{Step: step, CallID: id, Name: "append_note", Block: "notes", SideEffect: sdk.SideEffectUnsafe, IdempotencyKey: run + ":" + id}}
				}
				err := a.exec(func() error {
					if _, err := a.commit(Record{Type: RecModelStepFinished, RunID: run, ModelStep: &ModelStep{Step: step, Chain: "default", Provider: "fake", Message: encodeParts(parts)}}); err != nil {
						return err
					}
					start := time.Now()
					_, err := a.commit(intents...)
					lat = append(lat, time.Since(start))
					return err
				})
				if err != nil {
					b.Fatal(err)
				}
				if step == maxMaxTurns-1 { // a run holds at most maxMaxTurns steps: start another
					step = 0
					next := fmt.Sprintf("r%d", len(lat))
					if err := a.exec(func() error {
						_, err := a.commit(Record{Type: RecRunFinished, RunID: run, Finished: &RunEnd{Reason: EndMaxTurns}},
							Record{Type: RecRunStarted, RunID: next, RunStarted: &RunStarted{IdempotencyKey: next, Prompt: "p", Chain: "default", MaxTurns: maxMaxTurns, Tools: tools}})
						return err
					}); err != nil {
						b.Fatal(err)
					}
					run = next
				}
			}
			reportLatency(b, lat, n)
		})
	}
}

func reportLatency(b *testing.B, lat []time.Duration, perOp int) {
	var total time.Duration
	for _, d := range lat {
		total += d
	}
	slices.Sort(lat)
	b.ReportMetric(float64(len(lat)*perOp)/total.Seconds(), "intents/s")
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds())/1e3, "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds())/1e3, "p99-µs")
}

// timed wraps a model and adds up the time spent inside it.
type timed struct {
	g     chain.Generator
	spent atomic.Int64
}

func (t *timed) Generate(ctx context.Context, req *sdk.Request, out sdk.Sink) error {
	start := time.Now()
	err := t.g.Generate(ctx, req, out)
	t.spent.Add(int64(time.Since(start)))
	return err
}

// BenchmarkLoopStep measures the loop's own cost per step, model and tool
// time excluded: each step is a model call (instant) asking for one tool
// call (instant), so the step commits ModelStepFinished, one intent and one
// result (three fdatasyncs), builds the next request from the replayed
// conversation and updates the projection. Runs are 20 steps long, each in
// a new session, timed from admission (creating the session and writing
// RunStarted are not counted) to RunFinished, with no subscriber. The
// host-µs/step figure subtracts the time spent inside the model and the
// tool; run with TMPDIR=/dev/shm to see it without the disk.
func BenchmarkLoopStep(b *testing.B) {
	const steps = 20
	var toolTime atomic.Int64
	clock := newTool(sdk.SideEffectNone, "now")
	clock.call = func(_ context.Context, inv sdk.Invocation) (sdk.ToolResult, error) {
		start := time.Now()
		res := sdk.ToolResult{CallID: inv.CallID, Content: []sdk.Part{sdk.Text{Text: "2026-11-30T00:00:00Z"}}}
		toolTime.Add(int64(time.Since(start)))
		return res, nil
	}
	script := func(step int, _ *sdk.Request) (answer, error) {
		if step < steps-1 {
			return answer{text: "checking the time", calls: []sdk.ToolCall{call(fmt.Sprintf("c%d", step), "now", `{}`)}, usage: usage(100, 10)}, nil
		}
		return answer{text: "done", usage: usage(100, 10)}, nil
	}
	fake := &timed{g: &model{script: script}}
	m, err := New(Options{Dir: b.TempDir(), Chains: chains{&chain.Chain{Name: "default", Hops: []chain.Hop{{Name: "fake", Provider: fake}}, Policy: chain.Policy{Attempts: 1}}},
		Tools: map[string]Tool{"clock": clock}, IdleClose: time.Millisecond, LookupEnv: func(string) (string, bool) { return "", false }})
	if err != nil {
		b.Fatal(err)
	}
	defer m.Shutdown(context.Background())
	ctx := context.Background()
	total, n := time.Duration(0), 0
	for i := 0; b.Loop(); i++ {
		adm, err := m.Send(ctx, Key{Session: fmt.Sprintf("bench-%d", i)}, Params{Prompt: "what time is it?", Tools: []string{"clock"}, MaxTurns: intp(steps)})
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now() // after admission: creating the session is not a step
		waitRunner(b, m, adm.SessionID)
		total += time.Since(start)
		n += steps
	}
	host := total - time.Duration(fake.spent.Load()) - time.Duration(toolTime.Load())
	b.ReportMetric(float64(total.Microseconds())/float64(n), "µs/step")
	b.ReportMetric(float64(host.Microseconds())/float64(n), "host-µs/step")
	b.ReportMetric(float64(n)/total.Seconds(), "steps/s")
}

// waitRunner waits for session id's run goroutine to end, without a
// subscriber (whose reads would be counted as the loop's).
func waitRunner(b *testing.B, m *Manager, id string) {
	m.mu.Lock()
	a := m.actors[id]
	m.mu.Unlock()
	var rn *runner
	if err := a.exec(func() error { rn = a.active; return nil }); err != nil {
		b.Fatal(err)
	}
	if rn != nil {
		<-rn.done
	}
}
