package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/axonhq/axon/host/internal/testbin"
)

var (
	homePNGOnce sync.Once
	homePNGErr  error
)

// TestServeExpandsPluginPathsAgainstHome: a png display whose dir is
// "~/face" draws into the face directory of the HOME axon runs with, not
// into the sandboxed plugin's own home: the host expands the path the
// plugin declares as one before the plugin sees it.
func TestServeExpandsPluginPathsAgainstHome(t *testing.T) {
	t.Parallel()
	plugins := filepath.Join(binDir, "home-paths")
	homePNGOnce.Do(func() {
		homePNGErr = testbin.BuildInto(plugins, testbin.Target{Name: "axon-display-png", Pkg: "../../plugins/display-png"})
		if homePNGErr == nil {
			homePNGErr = os.Symlink(filepath.Join(binDir, "axon-provider-openai"), filepath.Join(plugins, "axon-provider-openai"))
		}
	})
	if homePNGErr != nil {
		t.Fatal(homePNGErr)
	}
	home := t.TempDir()
	face := filepath.Join(home, "face")
	if err := os.Mkdir(face, 0o700); err != nil { // to watch it from before the plugin starts
		t.Fatal(err)
	}
	cfg := filepath.Join(t.TempDir(), "axon.hcl")
	text := fmt.Sprintf(`axon {
  listen     = "127.0.0.1:0"
  state_dir  = %q
  plugin_dir = %q
}
%s
display "face" {
  plugin = "png"
  dir    = "~/face"
  grant {
    read_write = ["~/face"]
  }
}
`, t.TempDir(), plugins, chainConfig("http://"+closedPort(t)))
	if err := os.WriteFile(cfg, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}

	var out, errb bytes.Buffer // read only once serve has returned
	g := &globals{env: env{stdout: &out, stderr: &errb, home: home, exeDir: binDir,
		lookupEnv: func(string) (string, bool) { return "", false }}}
	root := newRoot(g)
	root.SetArgs([]string{"serve", "--config", cfg})
	root.SetOut(&out)
	root.SetErr(&errb)
	ctx, stop := context.WithCancel(context.Background())
	var served error
	ended := make(chan struct{})
	go func() { served = root.ExecuteContext(ctx); close(ended) }()

	drawn := waitForFile(t, face, "latest.png", ended)
	stop()
	<-ended
	if served != nil || !drawn {
		t.Fatalf("the png display did not draw %s (serve: %v); stderr:\n%s", filepath.Join(face, "latest.png"), served, errb.String())
	}
}

// waitForFile reports whether dir/name appears before ended is closed or
// a hang guard passes. It sleeps on inotify, set before the first look.
func waitForFile(t *testing.T, dir, name string, ended <-chan struct{}) bool {
	t.Helper()
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		t.Fatalf("inotify: %v", err)
	}
	defer unix.Close(fd)
	if _, err := unix.InotifyAddWatch(fd, dir, unix.IN_MOVED_TO|unix.IN_CLOSE_WRITE); err != nil {
		t.Fatalf("watch %s: %v", dir, err)
	}
	deadline := time.Now().Add(30 * time.Second) // no claim: a guard against a hang
	buf := make([]byte, 4096)
	for {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return true
		}
		select {
		case <-ended:
			return false
		default:
		}
		left := time.Until(deadline)
		if left <= 0 {
			return false
		}
		// Wake at least every second to see whether ended is closed.
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		if _, err := unix.Poll(fds, int(min(left, time.Second).Milliseconds())+1); err != nil && err != unix.EINTR {
			t.Fatalf("poll: %v", err)
		}
		for { // drain: the events only say "look again"
			if n, err := unix.Read(fd, buf); n <= 0 || err != nil {
				break
			}
		}
	}
}
