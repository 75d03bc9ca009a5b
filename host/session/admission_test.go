package session

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/axonhq/axon/host/wal"
	"github.com/axonhq/axon/sdk"
)

// walState is what is on disk for a session: whether its directory exists
// and the last record of its WAL.
func walState(t *testing.T, dir, id string) (exists bool, last uint64) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(dir, id)); errors.Is(err, os.ErrNotExist) {
		return false, 0
	}
	rep, err := wal.Verify(filepath.Join(dir, id, walFile))
	if err != nil {
		t.Fatal(err)
	}
	return true, rep.LastSeq
}

func TestRefusedAdmissionWritesNothing(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		params Params
		key    Key
		want   error
	}{
		{"max_turns zero", Params{Prompt: "p", MaxTurns: intp(0)}, testKey, ErrInvalid},
		{"max_turns negative", Params{Prompt: "p", MaxTurns: intp(-3)}, testKey, ErrInvalid},
		{"empty prompt", Params{Prompt: "  "}, testKey, ErrInvalid},
		{"unknown chain", Params{Prompt: "p", Chain: "nope"}, testKey, ErrInvalid},
		{"unknown tool block", Params{Prompt: "p", Tools: []string{"shell"}}, testKey, ErrInvalid},
		{"zero token budget", Params{Prompt: "p", Budget: Budget{Tokens: new(int64(0))}}, testKey, ErrInvalid},
		{"cost budget without prices", Params{Prompt: "p", Budget: Budget{CostUSD: new(0.5)}}, testKey, ErrInvalid},
		{"key with spaces", Params{Prompt: "p", IdempotencyKey: "a b"}, testKey, ErrInvalid},
		{"tool plugin down", Params{Prompt: "p", Tools: []string{"down"}}, testKey, ErrUnavailable},
		{"no session name", Params{Prompt: "p"}, Key{ProjectRoot: "/x"}, ErrInvalid},
		{"NUL in key", Params{Prompt: "p"}, Key{Session: "a\x00b"}, ErrInvalid},
	}
	down := &failingTools{err: sdk.ErrPluginExited}
	tools := map[string]Tool{"clock": newTool(sdk.SideEffectNone, "now"), "down": down}

	t.Run("new session", func(t *testing.T) {
		for _, c := range cases {
			r := newRig(t, toolSteps("done"), tools)
			if _, err := r.m.Send(context.Background(), c.key, c.params); !errors.Is(err, c.want) {
				t.Errorf("%s: %v, want %v", c.name, err, c.want)
			}
			if ents, _ := os.ReadDir(r.dir); len(ents) != 0 {
				t.Errorf("%s: refused admission created %d entries in the state dir", c.name, len(ents))
			}
		}
	})
	t.Run("existing session", func(t *testing.T) {
		r := newRig(t, toolSteps("done"), tools)
		adm := r.send(Params{Prompt: "first"})
		r.wait(adm)
		_, before := walState(t, r.dir, adm.SessionID)
		for _, c := range cases {
			if c.key != testKey {
				continue
			}
			if _, err := r.m.Send(context.Background(), c.key, c.params); !errors.Is(err, c.want) {
				t.Errorf("%s: %v, want %v", c.name, err, c.want)
			}
		}
		if _, after := walState(t, r.dir, adm.SessionID); after != before {
			t.Errorf("refused admissions moved the WAL from %d to %d records", before, after)
		}
	})
}

type failingTools struct{ err error }

func (f *failingTools) Tools(context.Context) ([]sdk.ToolSpec, error) { return nil, f.err }
func (f *failingTools) Call(context.Context, sdk.Invocation) (sdk.ToolResult, error) {
	return sdk.ToolResult{}, f.err
}

func TestResendWithSameKeyReturnsTheRun(t *testing.T) {
	t.Parallel()
	hold := make(chan struct{})
	r := newRig(t, func(int, *sdk.Request) (answer, error) { return answer{text: "ok", hold: hold}, nil }, nil)
	first := r.send(Params{Prompt: "p", IdempotencyKey: "k-1"})
	if first.Existing || first.Status != StatusRunning {
		t.Fatalf("first send %+v, want a new running run", first)
	}
	again := r.send(Params{Prompt: "p", IdempotencyKey: "k-1"})
	if !again.Existing || again.RunID != first.RunID || again.After != first.After {
		t.Errorf("resend %+v, want the existing run %s", again, first.RunID)
	}
	if _, err := r.m.Send(context.Background(), testKey, Params{Prompt: "other", IdempotencyKey: "k-2"}); !errors.Is(err, ErrBusy) {
		t.Errorf("send while running: %v, want ErrBusy", err)
	}
	if _, err := r.m.Send(context.Background(), testKey, Params{Prompt: "changed", IdempotencyKey: "k-1"}); !errors.Is(err, ErrKeyReused) {
		t.Errorf("same key, other prompt: %v, want ErrKeyReused", err)
	}
	close(hold)
	r.wait(first)
	// After the run ended, and after a restart, the key still names it.
	r.m.Shutdown(context.Background())
	r.m = r.start()
	done := r.send(Params{Prompt: "p", IdempotencyKey: "k-1"})
	if !done.Existing || done.RunID != first.RunID || done.Status != StatusFinished || done.Reason != EndCompleted {
		t.Errorf("resend after restart %+v, want finished run %s", done, first.RunID)
	}
	starts := 0
	for _, e := range r.transcript(first.SessionID) {
		if e.Type == EvRunStarted {
			starts++
		}
	}
	if starts != 1 {
		t.Errorf("%d run_started events, want 1", starts)
	}
}

func TestSecondWriterIsRefused(t *testing.T) {
	t.Parallel()
	r := newRig(t, toolSteps("done"), nil)
	adm := r.send(Params{Prompt: "p"})
	r.wait(adm)
	other := r.start() // a second manager on the same state: another axon
	if _, err := other.Send(context.Background(), testKey, Params{Prompt: "p2"}); !errors.Is(err, ErrLocked) {
		t.Errorf("second writer: %v, want ErrLocked", err)
	}
	if list := other.Sessions(); len(list) != 1 || !list[0].HeldElsewhere || list[0].LastRun().RunID != adm.RunID {
		t.Errorf("the other manager lists %+v, want the session held elsewhere, from its snapshot", list)
	}
	r.m.Shutdown(context.Background())
	if _, err := other.Send(context.Background(), testKey, Params{Prompt: "p2"}); err != nil {
		t.Errorf("after the first closed: %v", err)
	}
}

// An idle session closes, releasing its lease to another process.
func TestIdleSessionReleasesItsLease(t *testing.T) {
	t.Parallel()
	r := newRig(t, toolSteps("done"), nil, func(o *Options) { o.IdleClose = time.Millisecond })
	adm := r.send(Params{Prompt: "p"})
	r.m.mu.Lock()
	a := r.m.actors[adm.SessionID]
	r.m.mu.Unlock()
	r.wait(adm)
	<-a.closed // the run ended, the follower left: closed after IdleClose
	other := r.start()
	if _, err := other.Send(context.Background(), testKey, Params{Prompt: "p2"}); err != nil {
		t.Errorf("after the idle close: %v", err)
	}
}
