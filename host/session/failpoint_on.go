//go:build failpoints && unix

package session

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// failpoints kill the process at named points of the loop, for the crash
// harness. They exist only in a binary built with -tags failpoints:
//
//	AXON_FAILPOINT=NAME:N    SIGKILL this process at the Nth hit of NAME
//	AXON_FAILPOINT=*:N       ... at the Nth hit of any point
//	AXON_FAILPOINT_TRACE=F   append each hit's name to file F
//
// The points, in loop order: before_run_started, after_run_started,
// after_model_step, after_intents, after_tool_return (the tool answered,
// its result is not written), after_tool_result, before_run_finished,
// after_run_finished.
type failpoints struct {
	name  string
	at    int64
	trace *os.File

	mu   sync.Mutex
	hits int64
}

func newFailpoints(lookup func(string) (string, bool)) *failpoints {
	f := &failpoints{}
	if v, ok := lookup("AXON_FAILPOINT"); ok {
		name, n, _ := strings.Cut(v, ":")
		at, err := strconv.ParseInt(n, 10, 64)
		if err != nil || at < 1 {
			fmt.Fprintf(os.Stderr, "axon: ignoring AXON_FAILPOINT=%q: want NAME:N with N ≥ 1\n", v)
		} else {
			f.name, f.at = name, at
		}
	}
	if path, ok := lookup("AXON_FAILPOINT_TRACE"); ok {
		t, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			fmt.Fprintf(os.Stderr, "axon: AXON_FAILPOINT_TRACE: %v\n", err)
		}
		f.trace = t
	}
	if f.at == 0 && f.trace == nil {
		return nil
	}
	return f
}

func (f *failpoints) hit(name string) {
	if f == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.trace != nil {
		f.trace.WriteString(name + "\n")
	}
	if f.name != "*" && f.name != name {
		return
	}
	f.hits++
	if f.hits == f.at {
		fmt.Fprintf(os.Stderr, "axon: failpoint %s (hit %d): SIGKILL\n", name, f.hits)
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {} // the signal is on its way; nothing may run after this point
	}
}
