package session

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/axonhq/axon/sdk"
)

var errDisconnect = errors.New("disconnect")

// followN follows session id from after, taking at most n events (n < 0:
// all, until run ends), and returns them.
func followN(t *testing.T, m *Manager, id, run string, after Cursor, n int) []Event {
	t.Helper()
	var got []Event
	err := m.Follow(context.Background(), id, after, FollowOptions{Run: run}, func(it Item) error {
		if len(got) == n {
			return errDisconnect
		}
		got = append(got, *it.Event)
		return nil
	})
	if err != nil && !errors.Is(err, errDisconnect) {
		t.Fatal(err)
	}
	return got
}

// A subscriber that disconnects after any event and reconnects with the
// cursor of the last event it saw sees every control event exactly once.
func TestCursorResumeSeesEveryEventOnce(t *testing.T) {
	t.Parallel()
	notes := newTool(sdk.SideEffectUnsafe, "append_note")
	r := newRig(t, toolSteps("end", []sdk.ToolCall{call("a", "append_note", `{}`), call("b", "append_note", `{}`)}), map[string]Tool{"notes": notes})
	adm := r.send(Params{Prompt: "p", Tools: []string{"notes"}})
	r.wait(adm)
	all := r.transcript(adm.SessionID)
	t.Run("recent records from memory", func(t *testing.T) { resumeAtEveryEvent(t, r.m, adm, all) })
	r.m.Shutdown(context.Background())
	r.m = r.start() // a new process: nothing in memory, every read from the WAL
	t.Run("records from the WAL", func(t *testing.T) { resumeAtEveryEvent(t, r.m, adm, all) })
}

func resumeAtEveryEvent(t *testing.T, m *Manager, adm Admitted, all []Event) {
	for k := 0; k <= len(all); k++ {
		first := followN(t, m, adm.SessionID, adm.RunID, After(0), k)
		from := After(0)
		if len(first) > 0 {
			from = first[len(first)-1].Cursor
		}
		rest := followN(t, m, adm.SessionID, adm.RunID, from, -1)
		if diff := cmp.Diff(all, append(first, rest...)); diff != "" {
			t.Fatalf("disconnect after %d events (-want +got):\n%s", k, diff)
		}
	}
}

// The same across a live run: the subscriber leaves while a tool call is
// in flight and comes back after the run ended.
func TestCursorResumeDuringARun(t *testing.T) {
	t.Parallel()
	entered, release := make(chan string, 1), make(chan struct{})
	slow := blockingTool(sdk.SideEffectUnsafe, entered, release)
	r := newRig(t, toolSteps("end", []sdk.ToolCall{call("a", "slow", `{}`)}), map[string]Tool{"slow": slow})
	adm := r.send(Params{Prompt: "p", Tools: []string{"slow"}})
	<-entered // the intent is durable: the subscriber sees up to it
	var first []Event
	err := r.m.Follow(context.Background(), adm.SessionID, adm.After, FollowOptions{}, func(it Item) error {
		first = append(first, *it.Event)
		if it.Event.Type == EvToolDispatch {
			return errDisconnect
		}
		return nil
	})
	if !errors.Is(err, errDisconnect) {
		t.Fatal(err)
	}
	close(release)
	rest := followN(t, r.m, adm.SessionID, adm.RunID, first[len(first)-1].Cursor, -1)
	if diff := cmp.Diff(r.transcript(adm.SessionID), append(first, rest...)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestCursorText(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		want Cursor
		ok   bool
	}{
		{"", After(0), true}, {"0", After(0), true}, {"12", After(12), true}, {"12:0", Cursor{12, 0}, true}, {"12:3", Cursor{12, 3}, true},
		{"12:", Cursor{}, false}, {"x", Cursor{}, false}, {"-1", Cursor{}, false}, {"1:4294967295", Cursor{}, false}, {"1:2:3", Cursor{}, false},
	} {
		got, err := ParseCursor(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("ParseCursor(%q) = %v, %v; want %v ok=%v", c.in, got, err, c.want, c.ok)
		}
		if c.ok && c.in != "" && got.String() != c.in {
			t.Errorf("%q prints as %q", c.in, got.String())
		}
	}
}

// Deltas stream on the display lane before the step's durable event.
func TestDisplayLane(t *testing.T) {
	t.Parallel()
	hold := make(chan struct{})
	r := newRig(t, func(step int, _ *sdk.Request) (answer, error) {
		return answer{text: "one two three", hold: hold}, nil
	}, nil)
	adm := r.send(Params{Prompt: "p"})
	var text strings.Builder
	var order []string
	err := r.m.Follow(context.Background(), adm.SessionID, adm.After, FollowOptions{Display: true, Run: adm.RunID, Ready: func() { close(hold) }},
		func(it Item) error {
			switch {
			case it.Delta != nil:
				text.WriteString(it.Delta.Text)
				order = append(order, it.Delta.Type)
			case it.Event.Type == EvModelStep:
				order = append(order, EvModelStep)
				if it.Event.Text != text.String() {
					t.Errorf("model_step text %q, deltas %q", it.Event.Text, text.String())
				}
			}
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{DeltaText, DeltaText, DeltaText, EvModelStep}, order); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}

// A subscriber that falls behind loses deltas and is told how many.
func TestDisplayGap(t *testing.T) {
	t.Parallel()
	r := newRig(t, toolSteps("x"), nil)
	adm := r.send(Params{Prompt: "p"})
	r.wait(adm)
	a, err := r.m.acquire(adm.SessionID, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.m.release(a)
	ready, gotFirst, unblock := make(chan struct{}), make(chan struct{}), make(chan struct{})
	var items []Delta
	const shown = 300
	last, _ := a.lanes.position()
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		errc <- r.m.Follow(ctx, adm.SessionID, After(last), FollowOptions{Display: true, Ready: func() { close(ready) }}, func(it Item) error {
			if it.Delta == nil {
				return nil
			}
			items = append(items, *it.Delta)
			if len(items) == 1 {
				close(gotFirst)
				<-unblock
			}
			if len(items) == 2+displayBuffer { // first, gap, the buffered ones
				cancel()
			}
			return nil
		})
	}()
	<-ready
	a.lanes.show(Delta{Type: DeltaText, Text: "0"})
	<-gotFirst
	for i := 1; i < shown; i++ {
		a.lanes.show(Delta{Type: DeltaText, Text: "x"})
	}
	close(unblock)
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	if items[1].Type != DeltaGap || items[1].Dropped != shown-1-displayBuffer {
		t.Errorf("second item %+v, want a gap of %d", items[1], shown-1-displayBuffer)
	}
}
