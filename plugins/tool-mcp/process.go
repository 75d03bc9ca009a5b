package main

import (
	"io"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"time"

	"github.com/axonhq/axon/sdk/child"
)

// Bounds on what a server may send: one JSON-RPC message (a line on
// stdio), and the part of stderr kept for the log.
const (
	maxMessage = 4 << 20
	stderrTail = 4 << 10
	waitDelay  = 2 * time.Second
)

// process is one running stdio server: in a process group of its own, its
// stdin and stdout the transport, its stderr's tail kept. kill kills the
// whole group; the server is always reaped.
type process struct {
	cmd    *exec.Cmd
	kids   *child.Reaper
	stdin  *os.File // ours: the server's stdin
	stdout *os.File // ours: the server's stdout
	out    *eofReader
	stderr *tail

	mu   sync.Mutex
	gone bool // reaped, or about to be: its group id may no longer be ours

	exited chan struct{} // closed once the server is reaped
}

// startProcess runs argv with env in dir, in its own process group.
func startProcess(kids *child.Reaper, argv, env []string, dir string) (*process, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	p := &process{stdin: inW, stdout: outR, stderr: &tail{max: stderrTail}, kids: kids, exited: make(chan struct{})}
	p.cmd = &exec.Cmd{Path: argv[0], Args: argv, Env: env, Dir: dir, Stdin: inR, Stdout: outW, Stderr: p.stderr, SysProcAttr: child.OwnGroup(),
		WaitDelay: waitDelay} // a process that escaped the group may hold stderr: stop copying it
	err = kids.Start(p.cmd)
	inR.Close() // the server holds its own copies
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, err
	}
	p.out = &eofReader{File: outR}
	go p.reap()
	return p, nil
}

// reap waits for the server to exit, kills what is left of its group while
// its pid is still held, then reaps it.
func (p *process) reap() {
	pid := p.cmd.Process.Pid
	if child.WaitExited(pid) {
		p.mu.Lock()
		child.KillGroup(pid)
		p.gone = true
		p.mu.Unlock()
	}
	_ = p.cmd.Wait()
	p.kids.Done(pid)
	p.mu.Lock()
	p.gone = true
	p.mu.Unlock()
	close(p.exited)
}

// kill kills the server's group, unless the server is gone already.
func (p *process) kill() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.gone {
		child.KillGroup(p.cmd.Process.Pid)
		_ = p.cmd.Process.Kill()
	}
}

// close kills the server, waits for it to be reaped and releases the
// pipes. It returns only when nothing of the server remains but what
// escaped its group.
func (p *process) close() {
	p.kill()
	<-p.exited
	p.stdin.Close()
	p.stdout.Close()
}

// Reader and Writer are the transport's ends. Closing them is close's job
// (the transport closes them too: a second close is harmless).
func (p *process) reader() io.ReadCloser  { return p.out }
func (p *process) writer() io.WriteCloser { return p.stdin }

// eofReader is the server's stdout, noting whether the server ended it:
// EOF means the server closed it (it exited), where a read cut off by the
// plugin closing the pipe is another error.
type eofReader struct {
	*os.File
	eof atomic.Bool
}

func (r *eofReader) Read(b []byte) (int, error) {
	n, err := r.File.Read(b)
	if err == io.EOF {
		r.eof.Store(true)
	}
	return n, err
}

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(b)
	if len(b) >= t.max {
		t.buf = append(t.buf[:0], b[len(b)-t.max:]...)
		return n, nil
	}
	if over := len(t.buf) + len(b) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	t.buf = append(t.buf, b...)
	return n, nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
