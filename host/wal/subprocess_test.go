package wal

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"testing"
)

// Environment of a helper subprocess: the re-executed test binary runs
// TestHelperProcess, which does one job on one log and exits.
const (
	helperModeEnv = "AXON_WAL_HELPER"
	helperPathEnv = "AXON_WAL_HELPER_PATH"
	helperSeedEnv = "AXON_WAL_HELPER_SEED"
)

// TestHelperProcess is not a test: it is the body of the subprocesses that
// the lease and crash tests start. Its output protocol is one line per event
// on stdout.
func TestHelperProcess(t *testing.T) {
	mode := os.Getenv(helperModeEnv)
	if mode == "" {
		t.Skip("runs only as a helper subprocess")
	}
	path := os.Getenv(helperPathEnv)
	var err error
	switch mode {
	case "try-open":
		err = helperTryOpen(path)
	case "hold":
		err = helperHold(path)
	case "append-loop":
		err = helperAppendLoop(path, os.Getenv(helperSeedEnv))
	default:
		err = fmt.Errorf("unknown helper mode %q", mode)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		os.Exit(2)
	}
	os.Exit(0)
}

func helperCommand(mode, path string, seed uint64) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(),
		helperModeEnv+"="+mode,
		helperPathEnv+"="+path,
		helperSeedEnv+"="+strconv.FormatUint(seed, 10),
	)
	return cmd
}

// helperTryOpen prints "locked" or "opened".
func helperTryOpen(path string) error {
	w, err := Open(path)
	switch {
	case errors.Is(err, ErrLocked):
		fmt.Println("locked")
		return nil
	case err != nil:
		return err
	}
	fmt.Println("opened")
	return w.Close()
}

// helperHold opens the log, prints "ready" and holds the lease until its
// stdin is closed or it is killed.
func helperHold(path string) error {
	w, err := Open(path)
	if err != nil {
		return err
	}
	fmt.Println("ready")
	if _, err := io.Copy(io.Discard, os.Stdin); err != nil {
		return err
	}
	return w.Close()
}

// helperAppendLoop appends batches of 1 to 4 payload(seq) records until it
// is killed, printing "ack FIRST N" after each Append returns.
func helperAppendLoop(path, seed string) error {
	s, err := strconv.ParseUint(seed, 10, 64)
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(s, 0))
	w, err := Open(path)
	if err != nil {
		return err
	}
	for {
		n := 1 + rng.IntN(4)
		first, err := w.Append(batchOf(w.LastSeq()+1, n)...)
		if err != nil {
			return err
		}
		if _, err := fmt.Printf("ack %d %d\n", first, n); err != nil {
			return err
		}
	}
}
