package daemon

import (
	"bytes"
	"context"
	"errors"
	"image/png"
	"sync"
	"time"

	"github.com/axonhq/axon/hardware/facerender"
	"github.com/axonhq/axon/host/chain"
	"github.com/axonhq/axon/host/panel"
	"github.com/axonhq/axon/host/usage"
	"github.com/axonhq/axon/sdk"
)

// feed keeps what the panel's live view shows: the last turns, the face
// every display shows, each provider's last attempt, and the watchers to
// tell. Recording is a few field copies under a lock on the turn's own
// goroutine after its answer went out; a watcher with no room misses an
// update (counted), never slows a turn.
type feed struct {
	mu       sync.Mutex
	turns    []panel.Turn // oldest first, at most panel.MaxTurns
	nextID   int64
	faces    map[string]*shownFace
	lastErr  map[string]string // provider → class of its last failed attempt, "" after one that answered
	watchers map[chan panel.Update]*int
	// render draws faces for the panel; made on the first image asked
	// for, since its fonts cost the host memory a daemon nobody looks at
	// should not pay.
	render    *facerender.Renderer
	renderErr error
}

// shownFace is a display's last frame and, once asked for, its image.
type shownFace struct {
	face  panel.Face
	frame sdk.Frame
}

func newFeed() *feed {
	return &feed{faces: map[string]*shownFace{}, lastErr: map[string]string{}, watchers: map[chan panel.Update]*int{}}
}

// observer is the chain observer recording the turns src runs.
func (f *feed) observer(src usage.Source) chain.Observer { return feedObserver{f: f, src: src} }

type feedObserver struct {
	chain.NopObserver
	f   *feed
	src usage.Source
}

func (o feedObserver) OnHop(_ string, a chain.Attempt) {
	if a.Provider == "" || a.Attempt == 0 {
		return // skipped, not tried
	}
	o.f.mu.Lock()
	defer o.f.mu.Unlock()
	o.f.lastErr[a.Provider] = string(a.Class)
}

func (o feedObserver) OnTurnEnd(name string, res *chain.Result, err error) {
	t := panel.Turn{Time: time.Now().UTC(), Chain: name, Source: string(o.src), Outcome: turnOutcome(err), Attempts: []chain.Attempt{}}
	if o.src == "" {
		t.Source = "direct"
	}
	if err != nil {
		t.Class = string(sdk.ClassOf(err))
	}
	if res != nil {
		t.Provider, t.Model, t.Route = res.Provider, res.Model, res.Route
		t.Attempts = append(t.Attempts, res.Trail...)
		t.Trail = chain.TrailLine(res.Route, res.Trail)
		t.ElapsedMS = float64(res.Elapsed.Microseconds()) / 1000
		t.FirstTokenMS = float64(res.FirstContent.Microseconds()) / 1000
		if res.Usage != nil {
			t.InputTokens, t.OutputTokens = res.Usage.InputTokens, res.Usage.OutputTokens
		}
	}
	o.f.mu.Lock()
	defer o.f.mu.Unlock()
	o.f.nextID++
	t.ID = o.f.nextID
	o.f.turns = append(o.f.turns, t)
	if n := len(o.f.turns); n > panel.MaxTurns {
		o.f.turns = append(o.f.turns[:0], o.f.turns[n-panel.MaxTurns:]...)
	}
	o.f.publishLocked(panel.Update{Turn: &t})
}

// shown is faces.Options.Shown: it keeps the frame, for the panel to
// render as the png display does, at the display's size (a character
// display at the png default).
func (f *feed) shown(display string, fr sdk.Frame, caps sdk.DisplayCaps) {
	w, h := caps.Width, caps.Height
	if w < facerender.MinSize || h < facerender.MinSize || w > facerender.MaxSize || h > facerender.MaxSize {
		w, h = 250, 122
	}
	face := panel.Face{Display: display, Expression: string(fr.Expression), Text: fr.Text, Width: w, Height: h, Updated: time.Now().UTC()}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.faces[display] = &shownFace{face: face, frame: fr}
	f.publishLocked(panel.Update{Face: &face})
}

// imageLocked renders sf once.
func (f *feed) imageLocked(sf *shownFace) {
	if sf.face.PNG != nil {
		return
	}
	if f.render == nil && f.renderErr == nil {
		f.render, f.renderErr = facerender.NewRenderer()
	}
	if f.render == nil {
		return
	}
	img, err := f.render.Render(sf.frame, sf.face.Width, sf.face.Height)
	if err != nil {
		return
	}
	var buf bytes.Buffer
	if png.Encode(&buf, img) == nil {
		sf.face.PNG = buf.Bytes()
	}
}

func (f *feed) publishLocked(u panel.Update) {
	for ch, lost := range f.watchers {
		u.Lost = *lost
		select {
		case ch <- u:
			*lost = 0
		default:
			*lost++
		}
	}
}

func (f *feed) watch(ctx context.Context) <-chan panel.Update {
	ch := make(chan panel.Update, 64)
	lost := 0
	f.mu.Lock()
	f.watchers[ch] = &lost
	f.mu.Unlock()
	context.AfterFunc(ctx, func() {
		f.mu.Lock()
		delete(f.watchers, ch)
		f.mu.Unlock()
		close(ch)
	})
	return ch
}

func (f *feed) snapshotTurns() []panel.Turn {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]panel.Turn{}, f.turns...)
}

func (f *feed) snapshotFaces(order []string) []panel.Face {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := []panel.Face{}
	for _, name := range order {
		if sf, ok := f.faces[name]; ok {
			f.imageLocked(sf)
			out = append(out, sf.face)
		}
	}
	return out
}

func (f *feed) lastError(provider string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.lastErr[provider]
}

var errNoChain = errors.New("no such chain")
