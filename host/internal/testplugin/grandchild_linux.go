//go:build linux

package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// grandchildArg, as os.Args[1], makes the binary a step of the grandchild
// attack instead of a plugin: "grandchild-sleep TOKEN" is the middle
// process, "grandchild-sleep TOKEN detached" the one left running.
const grandchildArg = "grandchild-sleep"

// grandchild starts a process meant to outlive the plugin: the middle
// process it runs starts a new session, starts the final process and exits,
// so the final one is reparented away from the plugin. It reports the final
// process's pid (as this pid namespace sees it), which the middle process
// writes to its stdout, a pipe read here.
func grandchild(_ context.Context, args []string) string {
	self, err := selfExe()
	if err != nil {
		return blocked("%v", err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		return blocked("pipe: %v", err)
	}
	defer r.Close()
	// All three standard descriptors are the pipe: a Go program whose 0, 1
	// or 2 is closed opens /dev/null for it, and dies if there is none.
	p, err := os.StartProcess(self, []string{self, grandchildArg, args[0]},
		&os.ProcAttr{Files: []*os.File{w, w, w}})
	w.Close()
	if err != nil {
		return blocked("exec %s: %v", self, err)
	}
	r.SetReadDeadline(time.Now().Add(netTimeout))
	b, rerr := io.ReadAll(io.LimitReader(r, lootLimit))
	if rerr != nil {
		p.Kill()
	}
	p.Wait()
	line, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	if !strings.HasPrefix(line, "spawned: ") && !strings.HasPrefix(line, "blocked: ") {
		return blocked("the middle process said %s (read: %v)", loot(b), rerr)
	}
	return line
}

// grandchildMain is main for the two steps of the grandchild attack.
func grandchildMain(args []string) {
	if len(args) == 2 && args[1] == "detached" {
		for {
			time.Sleep(time.Hour)
		}
	}
	if len(args) != 1 {
		fmt.Println("usage: " + grandchildArg + " TOKEN")
		return
	}
	fmt.Println(spawnDetached(args[0]))
}

// spawnDetached is the middle process: a new session, then the final
// process, which keeps TOKEN in its command line so it can be found.
func spawnDetached(token string) string {
	note := ""
	if _, err := unix.Setsid(); err != nil {
		note = " (setsid: " + err.Error() + ")"
	}
	self, err := selfExe()
	if err != nil {
		return blocked("%v", err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		return blocked("pipe: %v", err)
	}
	defer r.Close()
	defer w.Close()
	p, err := os.StartProcess(self, []string{self, grandchildArg, token, "detached"},
		&os.ProcAttr{Files: []*os.File{r, w, w}})
	if err != nil {
		return blocked("exec %s: %v", self, err)
	}
	pid := p.Pid
	p.Release()
	return fmt.Sprintf("spawned: pid %d%s", pid, note)
}

// selfExe is a path that runs this binary: os.Executable, else
// /proc/self/exe, else os.Args[0] when it is a path (a plugin has no PATH
// to search).
func selfExe() (string, error) {
	p, err := os.Executable()
	if err == nil {
		return p, nil
	}
	if _, serr := os.Stat("/proc/self/exe"); serr == nil {
		return "/proc/self/exe", nil
	}
	if strings.Contains(os.Args[0], "/") {
		if _, serr := os.Stat(os.Args[0]); serr == nil {
			return os.Args[0], nil
		}
	}
	return "", fmt.Errorf("no path to our own executable: %w", err)
}
