package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/axonhq/axon/sdk"
)

func TestClassify(t *testing.T) {
	t.Parallel()
	s := &settings{
		authRE:    []*regexp.Regexp{regexp.MustCompile(`(?i)please run /login`)},
		quotaRE:   []*regexp.Regexp{regexp.MustCompile(`usage limit reached`)},
		authExit:  map[int]bool{41: true},
		quotaExit: map[int]bool{42: true},
	}
	for _, c := range []struct {
		name           string
		exit           exit
		rep            reply
		stderr, stdout string
		class          sdk.Class
		msg            string // the whole message
	}{
		{name: "a crash", exit: exit{code: -1, signal: "segmentation fault"}, stderr: "Please run /login",
			class: sdk.ClassTransient, msg: "cli: the client was killed by a signal (segmentation fault)"},
		{name: "auth exit code", exit: exit{code: 41},
			class: sdk.ClassAuthRequired, msg: "cli: the client is not logged in (exit status 41); log it in with HOME set to the block's home"},
		{name: "quota exit code", exit: exit{code: 42}, stderr: "Please run /login",
			class: sdk.ClassQuotaExhausted, msg: "cli: the subscription's usage limit is reached (exit status 42)"},
		{name: "auth pattern on stderr", exit: exit{code: 1}, stderr: "Invalid API key · Please run /login\n",
			class: sdk.ClassAuthRequired, msg: "cli: the client is not logged in (an auth pattern matched); log it in with HOME set to the block's home"},
		{name: "auth pattern in the reported error", exit: exit{code: 1}, rep: reply{reported: true, errText: "please run /login"},
			class: sdk.ClassAuthRequired},
		{name: "quota pattern on stdout", exit: exit{code: 1}, stdout: "Claude AI usage limit reached|1767225600\n",
			class: sdk.ClassQuotaExhausted, msg: "cli: the subscription's usage limit is reached (a quota pattern matched)"},
		{name: "auth before quota", exit: exit{code: 1}, stderr: "usage limit reached", stdout: "Please run /login",
			class: sdk.ClassAuthRequired},
		{name: "another exit, with stderr's last line", exit: exit{code: 2}, stderr: "starting\nError: boom\x1b[0m\n\n",
			class: sdk.ClassTransient, msg: "cli: the client exited with status 2: Error: boom [0m"},
		{name: "another exit, no stderr", exit: exit{code: 2},
			class: sdk.ClassTransient, msg: "cli: the client exited with status 2"},
		{name: "a reported error with exit 0", rep: reply{reported: true, errText: "model overloaded"},
			class: sdk.ClassTransient, msg: "cli: the client reported an error"},
		{name: "a long stderr is cut", exit: exit{code: 1}, stderr: strings.Repeat("é", 300),
			class: sdk.ClassTransient, msg: "cli: the client exited with status 1: " + strings.Repeat("é", maxTailText/2)},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			err := s.classify(c.exit, c.rep, []byte(c.stderr), []byte(c.stdout))
			if got := sdk.ClassOf(err); got != c.class {
				t.Errorf("class %s (%v), want %s", got, err, c.class)
			}
			var e *sdk.Error
			if c.msg != "" && (!asError(err, &e) || e.Message != c.msg) {
				t.Errorf("message %q, want %q", err, c.msg)
			}
		})
	}
}

func asError(err error, e **sdk.Error) bool {
	x, ok := err.(*sdk.Error)
	*e = x
	return ok
}

func TestTail(t *testing.T) {
	t.Parallel()
	tl := &tail{max: 5}
	for _, w := range []string{"ab", "cd", "efg", "", "0123456789", "x"} {
		tl.Write([]byte(w))
	}
	if got := string(tl.Bytes()); got != "6789x" {
		t.Errorf("tail %q, want %q", got, "6789x")
	}
}
