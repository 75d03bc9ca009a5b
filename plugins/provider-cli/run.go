package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/axonhq/axon/sdk/child"
)

// Bounds on what a client may print: stdout as a whole and one line of it
// (jsonl), and the part of stderr kept for matching.
const (
	maxStdout   = 8 << 20
	maxLine     = 1 << 20
	stderrTail  = 64 << 10
	readChunk   = 32 << 10
	drainGrace  = 3 * time.Second // after exit, for output still in the pipe
	maxTailText = 200             // bytes of stderr an error message may quote
)

// errStdoutTooLarge: the client printed more than maxStdout.
var errStdoutTooLarge = errors.New("stdout beyond the limit")

// process is one running client. Its stdout is read eagerly by a goroutine
// into a queue (bounded by maxStdout), so that output still in the pipe
// when the client exits is read at once, however slowly the sink takes
// events; a process that escaped the group and holds the pipe open is
// given drainGrace, then the read ends.
type process struct {
	cmd    *exec.Cmd
	kids   *child.Reaper
	stdout *os.File
	stderr *tail
	q      queue

	mu     sync.Mutex
	gone   bool // the client exited (or was reaped): its group id may no longer be ours
	killed bool // kill was called: the stdout read is cut off now, not after a grace

	exited  chan struct{} // closed once the client is reaped
	waitErr error         // cmd.Wait's, once exited is closed
	readEnd chan struct{} // closed when the stdout reader has stopped
	stopCtx func() bool   // stops the context watcher
}

// start runs argv with env in its own process group. stdin, when not nil,
// is written to the client's stdin; otherwise stdin is /dev/null. When ctx
// ends, the group is killed.
func start(ctx context.Context, kids *child.Reaper, argv, env []string, dir string, stdin *strings.Reader) (*process, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd := &exec.Cmd{Path: argv[0], Args: argv, Env: env, Dir: dir, Stdout: w, SysProcAttr: child.OwnGroup(), WaitDelay: drainGrace}
	p := &process{cmd: cmd, kids: kids, stdout: r, stderr: &tail{max: stderrTail}, exited: make(chan struct{}), readEnd: make(chan struct{})}
	p.q.signal = make(chan struct{}, 1)
	cmd.Stderr = p.stderr
	if stdin != nil {
		cmd.Stdin = stdin
	}
	err = kids.Start(cmd)
	w.Close() // the client holds its own copy; EOF comes when it and its children close theirs
	if err != nil {
		r.Close()
		return nil, err
	}
	go p.read()
	go p.reap()
	p.stopCtx = context.AfterFunc(ctx, p.kill)
	return p, nil
}

// read copies stdout into the queue until EOF, the limit, or the read
// being cut off.
func (p *process) read() {
	defer close(p.readEnd)
	total := 0
	buf := make([]byte, readChunk)
	for {
		n, err := p.stdout.Read(buf)
		if n > 0 {
			total += n
			if total > maxStdout {
				p.q.finish(errStdoutTooLarge)
				p.kill()
				return
			}
			p.q.push(append([]byte(nil), buf[:n]...)) // its own size: the queue holds bytes, not buffers
		}
		if err != nil {
			p.q.finish(nil) // EOF, or cut off: what was read is all there is
			return
		}
	}
}

// reap waits for the client to exit, kills what is left of its group
// while its pid is still held, then reaps it.
func (p *process) reap() {
	pid := p.cmd.Process.Pid
	if child.WaitExited(pid) {
		p.mu.Lock()
		child.KillGroup(pid)
		p.gone = true
		p.mu.Unlock()
	}
	err := p.cmd.Wait()
	p.kids.Done(pid)
	p.mu.Lock()
	p.gone = true
	if !p.killed {
		_ = p.stdout.SetReadDeadline(time.Now().Add(drainGrace))
	}
	p.mu.Unlock()
	p.waitErr = err
	close(p.exited)
}

// kill kills the client's group, unless it is gone, and cuts the stdout
// read off.
func (p *process) kill() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.gone {
		child.KillGroup(p.cmd.Process.Pid)
		_ = p.cmd.Process.Kill()
	}
	p.killed = true
	_ = p.stdout.SetReadDeadline(time.Now())
}

// next returns the next chunk of stdout, or ok false at its end or when
// ctx ends.
func (p *process) next(ctx context.Context) (chunk []byte, ok bool) {
	return p.q.pop(ctx)
}

// wait waits for the client to be reaped, killing it when ctx ends first,
// and returns cmd.Wait's error.
func (p *process) wait(ctx context.Context) error {
	select {
	case <-p.exited:
	case <-ctx.Done():
		p.kill()
		<-p.exited
	}
	return p.waitErr
}

// close kills whatever is left, reaps the client and releases the pipe.
// It is always called, and returns only when nothing of the run remains
// but the processes that escaped its group.
func (p *process) close() {
	p.stopCtx()
	p.kill()
	<-p.exited
	<-p.readEnd
	p.stdout.Close()
}

// queue holds stdout chunks between the reader and Generate.
type queue struct {
	mu     sync.Mutex
	chunks [][]byte
	done   bool
	err    error
	signal chan struct{} // a token when something was pushed or finished
}

func (q *queue) push(b []byte) {
	q.mu.Lock()
	q.chunks = append(q.chunks, b)
	q.mu.Unlock()
	q.wake()
}

func (q *queue) finish(err error) {
	q.mu.Lock()
	if !q.done {
		q.done, q.err = true, err
	}
	q.mu.Unlock()
	q.wake()
}

func (q *queue) wake() {
	select {
	case q.signal <- struct{}{}:
	default:
	}
}

func (q *queue) pop(ctx context.Context) ([]byte, bool) {
	for {
		q.mu.Lock()
		if len(q.chunks) > 0 {
			b := q.chunks[0]
			q.chunks[0] = nil
			q.chunks = q.chunks[1:]
			q.mu.Unlock()
			return b, true
		}
		done := q.done
		q.mu.Unlock()
		if done {
			return nil, false
		}
		select {
		case <-q.signal:
		case <-ctx.Done():
			return nil, false
		}
	}
}

// failure is why the reader stopped early, if it did.
func (q *queue) failure() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.err
}

// tail keeps the last max bytes written to it.
type tail struct {
	mu    sync.Mutex
	max   int
	buf   []byte
	total int // bytes written in all
}

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(b)
	t.total += n
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

func (t *tail) Bytes() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]byte(nil), t.buf...)
}

// Len is the number of bytes written in all, kept or not.
func (t *tail) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.total
}
