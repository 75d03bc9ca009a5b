package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// An attack tries one way out of the plugin's sandbox and answers one line:
// "blocked: <the error>" when the attempt failed, or "ESCAPED: <what it
// got>" when it worked. Other first words mean the attack itself could not be
// run as asked ("usage:", "unknown attack", "broken:", "unsupported:"), so a
// test asserting on "blocked:" fails loudly instead of passing by accident.
type attack struct {
	usage string // the argument names, e.g. "PID FD"
	run   func(ctx context.Context, args []string) string
}

const (
	// lootLimit is how much of anything read is reported. The loot is kept
	// verbatim (only control bytes are escaped) so a test can search it.
	lootLimit = 4 << 10
	// netTimeout bounds every connect.
	netTimeout = 2 * time.Second
	// peerTimeout bounds the wait for what a peer sends once connected.
	peerTimeout = time.Second
	// attackBudget bounds a whole attack, whatever it is stuck in.
	attackBudget = 10 * time.Second
)

// runAttack runs the named attack with args and returns its line. It never
// takes longer than attackBudget: an attack still running by then is
// abandoned (its goroutine is left to finish on its own).
func runAttack(ctx context.Context, name string, args []string) string {
	a, ok := attacks[name]
	if !ok {
		return noSuchAttack(name)
	}
	if want := len(strings.Fields(a.usage)); len(args) != want {
		return strings.TrimSpace("usage: attack " + name + " " + a.usage)
	}
	// Each attack has a goroutine of its own: those that move their thread
	// into another namespace or make it a tracer lock it and never unlock,
	// so the runtime discards the thread when the goroutine ends.
	done := make(chan string, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- fmt.Sprintf("broken: attack %s panicked: %v", name, r)
			}
		}()
		done <- a.run(ctx, args)
	}()
	timer := time.NewTimer(attackBudget)
	defer timer.Stop()
	select {
	case line := <-done:
		return oneLine(line)
	case <-timer.C:
		return fmt.Sprintf("blocked: %s gave no answer within %s", name, attackBudget)
	case <-ctx.Done():
		return "blocked: " + ctx.Err().Error()
	}
}

func blocked(format string, a ...any) string { return "blocked: " + fmt.Sprintf(format, a...) }

func escaped(format string, a ...any) string { return "ESCAPED: " + fmt.Sprintf(format, a...) }

func usage(err error) string { return "usage: " + err.Error() }

// loot renders bytes read from somewhere it should not have been possible,
// cut to lootLimit, on one line.
func loot(b []byte) string {
	if len(b) == 0 {
		return "(nothing)"
	}
	suffix := ""
	if len(b) > lootLimit {
		b, suffix = b[:lootLimit], fmt.Sprintf(" [truncated at %d bytes]", lootLimit)
	}
	return visible(b) + suffix
}

// visible keeps printable text as it is and escapes control bytes and
// invalid UTF-8 (\0 for NUL, \n, \t, \xNN), so loot stays on one line and a
// secret in it stays searchable.
func visible(b []byte) string {
	var sb strings.Builder
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		switch {
		case r == 0:
			sb.WriteString(`\0`)
		case r == '\n':
			sb.WriteString(`\n`)
		case r == '\r':
			sb.WriteString(`\r`)
		case r == '\t':
			sb.WriteString(`\t`)
		case r == utf8.RuneError && size == 1, r < ' ', r == 0x7f:
			fmt.Fprintf(&sb, `\x%02x`, b[0])
		default:
			sb.Write(b[:size])
		}
		b = b[size:]
	}
	return sb.String()
}

// oneLine is the last guard for the one-line promise: error texts are not
// expected to hold newlines, but nothing stops them.
func oneLine(s string) string {
	return strings.NewReplacer("\n", `\n`, "\r", `\r`).Replace(s)
}

// readLimited reads at most lootLimit+1 bytes of path, enough for loot to
// tell it was cut.
func readLimited(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, lootLimit+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return b, nil
}

func pidArg(s string) (int, error) {
	pid, err := strconv.Atoi(s)
	if err != nil || pid <= 0 {
		// kill(0) and kill(-1) mean groups of processes: never that.
		return 0, fmt.Errorf("PID must be a positive number, got %q", s)
	}
	return pid, nil
}

func fdArg(s string) (int, error) {
	fd, err := strconv.Atoi(s)
	if err != nil || fd < 0 {
		return 0, fmt.Errorf("FD must be a number >= 0, got %q", s)
	}
	return fd, nil
}

// errText is err's text, or "ok" for nil, for lines that list several tries.
func errText(err error) string {
	if err == nil {
		return "ok"
	}
	return err.Error()
}

var errTimeout = errors.New("timed out")
