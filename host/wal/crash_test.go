package wal

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// TestKill9KeepsAcknowledgedRecords runs a child process that appends
// batches in a loop and reports each returned Append over a pipe, SIGKILLs
// it after a random number of acknowledgements, and reopens the log: every
// acknowledged record is there with its content, the sequence has no gap,
// nothing is corrupt, and the lineage never changes. The child continues
// the same log in each round, so recovery after a kill is also exercised by
// the next writer. It runs on the real disk (t.TempDir), not tmpfs.
func TestKill9KeepsAcknowledgedRecords(t *testing.T) {
	t.Parallel()
	const rounds = 25
	path := filepath.Join(t.TempDir(), "wal")
	rng := rand.New(rand.NewPCG(9, 9))
	var (
		acked   uint64      // highest acknowledged seq over all rounds
		next    = uint64(1) // seq the next acknowledged batch must start at
		lineage LineageID
		torn    int // rounds that left a torn tail
		extra   int // rounds whose log held records past the last ack
	)
	for round := range rounds {
		killAfter := 1 + rng.IntN(40)
		cmd := helperCommand("append-loop", path, uint64(round))
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr limitedBuffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(out)
		for n := 1; sc.Scan(); n++ {
			var first uint64
			var count int
			if _, err := fmt.Sscanf(sc.Text(), "ack %d %d", &first, &count); err != nil {
				continue // not a protocol line
			}
			if first != next {
				t.Errorf("round %d: acknowledged batch starts at seq %d, want %d", round, first, next)
			}
			next = first + uint64(count)
			acked = next - 1
			if n == killAfter {
				if err := cmd.Process.Kill(); err != nil {
					t.Fatal(err)
				}
			}
		}
		err = cmd.Wait()
		if ee, ok := errors.AsType[*exec.ExitError](err); !ok || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
			t.Fatalf("round %d: child ended with %v, want SIGKILL; stderr: %s", round, err, stderr.String())
		}

		rep, err := Verify(path)
		if err != nil {
			t.Fatalf("round %d: Verify after kill: %v", round, err)
		}
		if rep.End < rep.Size {
			torn++
		}
		w, err := Open(path)
		if err != nil {
			t.Fatalf("round %d: Open after kill: %v", round, err)
		}
		if round == 0 {
			lineage = w.Lineage()
		} else if w.Lineage() != lineage {
			t.Errorf("round %d: lineage changed to %s from %s", round, w.Lineage(), lineage)
		}
		last := w.LastSeq()
		if last < acked {
			t.Errorf("round %d: log ends at seq %d, but seq %d was acknowledged", round, last, acked)
		}
		if last > acked {
			extra++
		}
		want := uint64(1)
		if err := w.Replay(1, func(seq uint64, p []byte) error {
			if seq != want || !bytes.Equal(p, payload(seq)) {
				return fmt.Errorf("record %d (%d bytes) differs from seq %d (%d bytes)", seq, len(p), want, len(payload(want)))
			}
			want++
			return nil
		}); err != nil {
			t.Errorf("round %d: %v", round, err)
		}
		mustClose(t, w)
		if t.Failed() {
			return
		}
		next = last + 1 // the next child continues after what survived
	}
	t.Logf("%d kills, last acknowledged seq %d, %d torn tails cut, %d rounds with records written but not yet acknowledged", rounds, acked, torn, extra)
}

// limitedBuffer keeps the first 4 KiB written to it, for failure messages.
type limitedBuffer struct{ b []byte }

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := 4096 - len(l.b); room > 0 {
		l.b = append(l.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

func (l *limitedBuffer) String() string { return string(l.b) }
