package main

import (
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/axonhq/axon/sdk"
	"github.com/axonhq/axon/sdk/child"
)

// exit is how a client ended.
type exit struct {
	code   int    // its exit status; -1 when a signal ended it
	signal string // the signal that did, e.g. "segmentation fault"
}

// exitOf reads cmd.Wait's error. A client that exited 0 but left a
// process holding its output (exec.ErrWaitDelay) exited 0.
func exitOf(err error) (exit, error) {
	if err == nil || errors.Is(err, exec.ErrWaitDelay) {
		return exit{}, nil
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return exit{}, err
	}
	if sig, ok := child.Signalled(ee.Sys()); ok {
		return exit{code: -1, signal: sig}, nil
	}
	return exit{code: ee.ExitCode()}, nil
}

// failed reports whether the run failed: a non-zero exit, a signal, or an
// error the client reported in its output.
func (e exit) failed(rep reply) bool { return e.code != 0 || rep.reported }

// classify maps a failed run to the sdk taxonomy: a crash is transient;
// then the exit codes, then the patterns over stderr, the reported error
// and the end of stdout, auth before quota; anything else is transient,
// with the exit status and the end of stderr in the message. The message
// quotes stderr only there, after the patterns ran, and never more than
// maxTailText bytes.
func (s *settings) classify(e exit, rep reply, stderr, stdout []byte) error {
	if e.code < 0 {
		return sdk.Transientf("cli: the client was killed by a signal (%s)", e.signal)
	}
	switch {
	case e.code > 0 && s.authExit[e.code]:
		return authError(fmt.Sprintf("exit status %d", e.code))
	case e.code > 0 && s.quotaExit[e.code]:
		return quotaError(fmt.Sprintf("exit status %d", e.code))
	}
	texts := [][]byte{stderr, []byte(rep.errText), stdout}
	switch {
	case matchAny(s.authRE, texts):
		return authError("an auth pattern matched")
	case matchAny(s.quotaRE, texts):
		return quotaError("a quota pattern matched")
	}
	quote := quoteTail(stderr)
	if e.code != 0 {
		return sdk.Transientf("cli: the client exited with status %d%s", e.code, quote)
	}
	return sdk.Transientf("cli: the client reported an error%s", quote)
}

func authError(why string) error {
	return sdk.Errorf(sdk.ClassAuthRequired, "cli: the client is not logged in (%s); log it in with HOME set to the block's home", why)
}

func quotaError(why string) error {
	return sdk.Errorf(sdk.ClassQuotaExhausted, "cli: the subscription's usage limit is reached (%s)", why)
}

func matchAny(res []*regexp.Regexp, texts [][]byte) bool {
	for _, re := range res {
		for _, t := range texts {
			if len(t) > 0 && re.Match(t) {
				return true
			}
		}
	}
	return false
}

// quoteTail is ": " and the last line of stderr, at most maxTailText
// bytes of it, printable, or "" when stderr is empty.
func quoteTail(stderr []byte) string {
	s := strings.TrimRightFunc(strings.ToValidUTF8(string(stderr), ""), unicode.IsSpace)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	if len(s) > maxTailText {
		s = s[len(s)-maxTailText:]
		for len(s) > 0 && !utf8.RuneStart(s[0]) {
			s = s[1:]
		}
	}
	s = strings.Map(func(r rune) rune {
		if unicode.IsPrint(r) {
			return r
		}
		return ' '
	}, s)
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	return ": " + s
}
