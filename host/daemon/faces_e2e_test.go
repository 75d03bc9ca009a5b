package daemon

import (
	"context"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/axonhq/axon/host/chain"
	"github.com/axonhq/axon/host/faces"
)

// frames lists the expressions the png display plugin has written, in order.
func frames(dir string) []string {
	entries, _ := os.ReadDir(dir)
	re := regexp.MustCompile(`^frame-[0-9]+-([a-z_]+)\.png$`)
	var out []string
	for _, e := range entries { // ReadDir sorts by name: by frame number
		if m := re.FindStringSubmatch(e.Name()); m != nil {
			out = append(out, m[1])
		}
	}
	return out
}

// waitFrames waits until the display has drawn want as its newest frames.
// The png plugin is another process: it announces a frame by renaming the
// file into dir, so waitFrames sleeps on inotify (IN_MOVED_TO and
// IN_CLOSE_WRITE on dir) and looks again after each event. The watch is set
// before the first look, so no frame can slip between the two. The
// deadline only guards against a hang. It reports with Errorf, so upstream
// handlers (other goroutines) may call it too.
func waitFrames(t *testing.T, dir string, want ...string) bool {
	t.Helper()
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		t.Errorf("inotify: %v", err)
		return false
	}
	defer unix.Close(fd)
	if _, err := unix.InotifyAddWatch(fd, dir, unix.IN_MOVED_TO|unix.IN_CLOSE_WRITE); err != nil {
		t.Errorf("watch %s: %v", dir, err)
		return false
	}
	deadline := time.Now().Add(20 * time.Second)
	buf := make([]byte, 4096)
	for {
		got := frames(dir)
		if len(got) >= len(want) && slices.Equal(got[len(got)-len(want):], want) {
			return true
		}
		left := time.Until(deadline)
		if left <= 0 {
			t.Errorf("display frames %v, want them to end with %v", got, want)
			return false
		}
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		if _, err := unix.Poll(fds, int(left.Milliseconds())+1); err != nil && err != unix.EINTR {
			t.Errorf("poll: %v", err)
			return false
		}
		for { // drain: the events only say "look again"
			if n, err := unix.Read(fd, buf); n <= 0 || err != nil {
				break
			}
		}
	}
}

// mustFrames is waitFrames for the test's own goroutine.
func mustFrames(t *testing.T, dir string, want ...string) {
	t.Helper()
	if !waitFrames(t, dir, want...) {
		t.FailNow()
	}
}

func withDisplay(dir string) string {
	return `
display "face" {
  plugin   = "png"
  dir      = "` + dir + `"
  keep_all = true
  grant {
    read_write = ["` + dir + `"]
  }
}
`
}

// TestFacesFollowTheTurn: the upstream waits, at each phase of the turn,
// until the png display (a real plugin process) has drawn that phase.
func TestFacesFollowTheTurn(t *testing.T) {
	dir := t.TempDir()
	first := newUpstream(t, nil)
	second := newUpstream(t, anthropicText("claude-test", "unused"))
	first.script(func(w http.ResponseWriter, r *http.Request) {
		waitFrames(t, dir, "thinking")
		sse(w, `data: {"id":"c","model":"gpt-test","choices":[{"index":0,"delta":{"content":"hello"}}]}`+"\n\n")
		waitFrames(t, dir, "thinking", "speaking")
		more(w, `data: {"id":"c","model":"gpt-test","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`+"\n\n", "data: [DONE]\n\n")
	})
	clk := &heldClock{hold: 7 * time.Minute}
	r := newRig(t, twoProviders(first, second, withDisplay(dir)), Options{Faces: faces.Options{HappyFor: clk.hold, Clock: clk}})
	mustFrames(t, dir, "idle")
	resp := r.post("/v1/chat/completions", chatBody("default", true))
	if resp.status != http.StatusOK || !strings.Contains(resp.body, "hello") {
		t.Fatalf("%d %s", resp.status, resp.body)
	}
	mustFrames(t, dir, "idle", "thinking", "speaking", "happy")
	clk.release() // happy has been drawn: now let it end
	mustFrames(t, dir, "idle", "thinking", "speaking", "happy", "idle")
}

// heldClock is the system clock, except that a timer of exactly hold fires
// only once the test calls release: the test, not the scheduler, decides
// when "happy" ends, so happy is never replaced before it is drawn.
type heldClock struct {
	hold time.Duration
	mu   sync.Mutex
	held []*time.Timer
	gone bool
}

func (c *heldClock) Now() time.Time { return time.Now() }

func (c *heldClock) AfterFunc(d time.Duration, f func()) chain.Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case d != c.hold:
		return time.AfterFunc(d, f)
	case c.gone:
		return time.AfterFunc(0, f)
	}
	t := time.AfterFunc(24*time.Hour, f)
	c.held = append(c.held, t)
	return t
}

func (c *heldClock) Sleep(ctx context.Context, d time.Duration) error {
	return chain.SystemClock().Sleep(ctx, d)
}

// release fires every held timer that was not stopped, and every later one
// at once.
func (c *heldClock) release() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gone = true
	for _, t := range c.held {
		if t.Stop() {
			t.Reset(0)
		}
	}
}

func TestDegradedFaceAndRecovery(t *testing.T) {
	dir := t.TempDir()
	first := newUpstream(t, status(503, nil, `{"error":{"message":"down","type":"server_error"}}`))
	second := newUpstream(t, status(529, nil, anthropicOverloaded))
	r := newRig(t, twoProviders(first, second, withDisplay(dir)), Options{Faces: faces.Options{HappyFor: time.Hour}})
	if resp := r.post("/v1/chat/completions", chatBody("default", false)); resp.status != http.StatusServiceUnavailable {
		t.Fatalf("exhausted: %d", resp.status)
	}
	mustFrames(t, dir, "degraded")
	second.script(anthropicText("claude-test", "better now"))
	if resp := r.post("/v1/chat/completions", chatBody("default", false)); resp.status != http.StatusOK {
		t.Fatalf("recovery: %d %s", resp.status, resp.body)
	}
	mustFrames(t, dir, "happy")
}

// TestDisplayKilledMidTurn: the display plugin is SIGKILLed while a turn
// runs; the turn still answers in full, and the face comes back on a
// restarted plugin.
func TestDisplayKilledMidTurn(t *testing.T) {
	dir := t.TempDir()
	var r *rig
	var killed int
	first := newUpstream(t, nil)
	first.script(func(w http.ResponseWriter, req *http.Request) {
		// The first request kills the display mid-turn; later ones just answer.
		waitFrames(t, dir, "thinking")
		in, _ := r.broker.Supervisor().Instance("face")
		killed = in.Pid()
		if killed <= 0 { // never kill(0): that signals the whole process group
			t.Errorf("display plugin pid %d", killed)
		} else {
			syscall.Kill(killed, syscall.SIGKILL)
		}
		openaiText("gpt-test", "still", "answering")(w, req)
	}, openaiText("gpt-test", "still", "answering"))
	second := newUpstream(t, anthropicText("claude-test", "unused"))
	r = newRig(t, twoProviders(first, second, withDisplay(dir)), Options{
		Faces:      faces.Options{HappyFor: time.Hour},
		Supervisor: supervisorFast(),
	})
	mustFrames(t, dir, "idle")
	resp := r.post("/v1/chat/completions", chatBody("default", false))
	if resp.status != http.StatusOK || chatText(t, resp.body) != "still answering" {
		t.Fatalf("the turn failed with the display: %d %s", resp.status, resp.body)
	}
	if killed == 0 {
		t.Fatal("display plugin was not running")
	}
	// A later frame is drawn by a new display process.
	if resp := r.post("/v1/chat/completions", chatBody("default", false)); resp.status != http.StatusOK {
		t.Fatal(resp.body)
	}
	mustFrames(t, dir, "happy")
	in, _ := r.broker.Supervisor().Instance("face")
	if pid := in.Pid(); pid == 0 || pid == killed {
		t.Errorf("display pid %d after the kill (killed %d)", pid, killed)
	}
}
