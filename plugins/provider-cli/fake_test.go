package main

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/axonhq/axon/sdk"
	"github.com/axonhq/axon/sdk/sdktest"
)

// TestFakeClient runs Generate against the fake client in each parse mode:
// what a user of a subscription sees when the client answers, is logged
// out, is at its limit, hangs, crashes or fails.
func TestFakeClient(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{parseText, parseJSON, parseJSONL} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			cases := []struct {
				name     string
				prompt   string
				loggedIn bool
				extra    map[string]any
				want     string    // the answer, on success
				class    sdk.Class // the failure's class
				code     string    // and its code, when it has one
				inMsg    string    // a part of the failure's message
			}{
				{name: "echo", prompt: "hello there, world", loggedIn: true, want: "you said: hello there, world"},
				{name: "logged out", prompt: "hello", class: sdk.ClassAuthRequired},
				{name: "limit", prompt: "limit", loggedIn: true, class: sdk.ClassQuotaExhausted},
				{name: "hang", prompt: "hang", loggedIn: true, extra: map[string]any{"timeout": "300ms"},
					class: sdk.ClassTransient, code: "timeout", inMsg: "300ms"},
				{name: "crash", prompt: "crash", loggedIn: true, class: sdk.ClassTransient, inMsg: "signal"},
				{name: "fail", prompt: "fail", loggedIn: true, class: sdk.ClassTransient, inMsg: "status 3: fake failure on stderr"},
				{name: "empty", prompt: "empty", loggedIn: true, class: sdk.ClassPermanent, code: "no_text"},
				{name: "auth exit code", prompt: "hello", extra: map[string]any{"auth_patterns": []string{}, "auth_exit_codes": []int{1}},
					class: sdk.ClassAuthRequired, inMsg: "exit status 1"},
				{name: "quota exit code", prompt: "limit", loggedIn: true, extra: map[string]any{"quota_patterns": []string{}, "quota_exit_codes": []int{1}},
					class: sdk.ClassQuotaExhausted, inMsg: "exit status 1"},
				{name: "no patterns", prompt: "limit", loggedIn: true, extra: map[string]any{"quota_patterns": []string{}},
					class: sdk.ClassTransient, inMsg: "status 1"},
				{name: "model from the block", prompt: "model", loggedIn: true,
					extra: map[string]any{"model": "m1", "command": append(modes[mode]["command"].([]string), "--model", "{model}")},
					want:  "model: m1"},
				{name: "prompt on stdin", prompt: "hello stdin", loggedIn: true,
					extra: map[string]any{"prompt_via": "stdin", "command": withoutPrompt(modes[mode]["command"].([]string))},
					want:  "you said: hello stdin"},
				{name: "prompt that looks like a flag", prompt: "--help me", loggedIn: true, want: "you said:  --help me"},
			}
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					t.Parallel()
					p := newCLI(t, fakeHome(t, c.loggedIn), values(t, mode, c.extra), "")
					events, err := generate(t, p, userRequest(c.prompt))
					if c.class == "" {
						if err != nil {
							t.Fatalf("Generate: %v", err)
						}
						sdktest.CheckEvents(t, events)
						if got := answer(events); got != c.want {
							t.Errorf("answer %q, want %q", got, c.want)
						}
						return
					}
					var e *sdk.Error
					if !errors.As(err, &e) {
						t.Fatalf("Generate: %v (events %v), want a %s error", err, events, c.class)
					}
					if e.Class != c.class || e.Code != c.code || !strings.Contains(e.Message, c.inMsg) {
						t.Errorf("error %v: want class %s, code %q, a message with %q", err, c.class, c.code, c.inMsg)
					}
					if mode != parseJSONL && countType(events, sdk.EventTextDelta) > 0 {
						t.Errorf("a failed %s run sent text: %v", mode, events)
					}
				})
			}
		})
	}
}

func withoutPrompt(argv []string) []string {
	var out []string
	for i := 0; i < len(argv); i++ {
		if argv[i] == "-p" {
			i++
			continue
		}
		out = append(out, argv[i])
	}
	return out
}

// TestFakeClientStreams: jsonl sends the client's chunks as deltas as they
// come, then the usage the result line reports; text and json send one
// delta at the end. Nothing is sent twice.
func TestFakeClientStreams(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		mode   string
		deltas []string
		usage  *sdk.Usage
	}{
		{parseText, []string{"you said: one two three four"}, nil},
		{parseJSON, []string{"you said: one two three four"}, &sdk.Usage{InputTokens: sdk.Tokens(4), OutputTokens: sdk.Tokens(6)}},
		{parseJSONL, []string{"you said: ", "one two th", "ree four"}, &sdk.Usage{InputTokens: sdk.Tokens(4), OutputTokens: sdk.Tokens(6)}},
	} {
		t.Run(c.mode, func(t *testing.T) {
			t.Parallel()
			p := newCLI(t, fakeHome(t, true), values(t, c.mode, nil), "")
			events, err := generate(t, p, userRequest("one two three four"))
			if err != nil {
				t.Fatalf("Generate: %v", err)
			}
			want := []sdk.Event{{Type: sdk.EventStart, Model: ""}}
			for _, d := range c.deltas {
				want = append(want, sdk.Event{Type: sdk.EventTextDelta, Text: d})
			}
			if c.usage != nil {
				want = append(want, sdk.Event{Type: sdk.EventUsage, Usage: c.usage})
			}
			want = append(want, sdk.Event{Type: sdk.EventFinish, Finish: sdk.FinishStop})
			if diff := cmp.Diff(want, events); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}

// TestFakeClientResultWithoutDeltas: a jsonl client whose lines carry no
// delta the text_path finds answers with result_path's text, once.
func TestFakeClientResultWithoutDeltas(t *testing.T) {
	t.Parallel()
	p := newCLI(t, fakeHome(t, true), values(t, parseJSONL, map[string]any{"text_path": "[type=nothing].text"}), "")
	events, err := generate(t, p, userRequest("one two"))
	if err != nil {
		t.Fatalf("Generate: %v", err)
	}
	if got := answer(events); got != "you said: one two" || countType(events, sdk.EventTextDelta) != 1 {
		t.Errorf("events %v: want the result line's text as one delta", events)
	}
}

// TestFakeClientEnvironment: the client sees exactly the environment the
// plugin builds: the proxy offered, PATH from path, env minus scrub_env,
// and nothing of the plugin's own (go-plugin's PLUGIN_* variables).
func TestFakeClientEnvironment(t *testing.T) {
	t.Setenv("PLUGIN_PROTOCOL_VERSIONS", "1")
	t.Setenv("AXON_TEST_LEAK", "leaked")
	const proxy = "http://127.0.0.1:3128"
	extra := map[string]any{
		"env":       map[string]string{"SSL_CERT_FILE": "/etc/fake/ca.pem", "FAKE_SECRET": "s3cret"},
		"scrub_env": []string{"FAKE_SECRET"},
		"path":      "/usr/bin:/bin",
	}
	for _, c := range []struct{ name, want string }{
		{"HTTPS_PROXY", proxy},
		{"https_proxy", proxy},
		{"HTTP_PROXY", "unset"},
		{"NO_PROXY", "unset"},
		{"no_proxy", "unset"},
		{"PATH", "/usr/bin:/bin"},
		{"SSL_CERT_FILE", "/etc/fake/ca.pem"},
		{"FAKE_SECRET", "unset"},
		{"PLUGIN_PROTOCOL_VERSIONS", "unset"},
		{"AXON_TEST_LEAK", "unset"},
		{"PWD", "unset"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := newCLI(t, fakeHome(t, true), values(t, parseJSON, extra), proxy)
			events, err := generate(t, p, userRequest("env "+c.name))
			if err != nil {
				t.Fatalf("Generate: %v", err)
			}
			if got := answer(events); got != c.want {
				t.Errorf("%s = %q, want %q", c.name, got, c.want)
			}
		})
	}
	t.Run("HOME", func(t *testing.T) {
		home := fakeHome(t, true)
		p := newCLI(t, home, values(t, parseJSON, nil), "")
		events, err := generate(t, p, userRequest("env HOME"))
		if err != nil || answer(events) != home {
			t.Errorf("HOME = %q (%v), want the plugin's %q", answer(events), err, home)
		}
	})
	t.Run("no proxy offered", func(t *testing.T) {
		p := newCLI(t, fakeHome(t, true), values(t, parseJSON, nil), "")
		events, err := generate(t, p, userRequest("env HTTPS_PROXY"))
		if err != nil || answer(events) != "unset" {
			t.Errorf("HTTPS_PROXY = %q (%v), want unset", answer(events), err)
		}
	})
}

// TestFakeClientBounds: a client that prints without end is stopped at the
// bounds, as a permanent failure, not buffered.
func TestFakeClientBounds(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ mode, inMsg string }{
		{parseText, "printed more than"},
		{parseJSON, "printed more than"},
		{parseJSONL, "a line of the client's output is beyond"},
	} {
		t.Run(c.mode, func(t *testing.T) {
			t.Parallel()
			p := newCLI(t, fakeHome(t, true), values(t, c.mode, nil), "")
			_, err := generate(t, p, userRequest("flood"))
			if !errors.Is(err, sdk.ErrEventTooLarge) || !strings.Contains(err.Error(), c.inMsg) {
				t.Errorf("Generate: %v, want event_too_large with %q", err, c.inMsg)
			}
		})
	}
}

// TestFakeClientConversation: a conversation reaches the client in the
// documented layout.
func TestFakeClientConversation(t *testing.T) {
	t.Parallel()
	p := newCLI(t, fakeHome(t, true), values(t, parseText, nil), "")
	req := &sdk.Request{System: sdk.SystemPrompt("Be terse."), Messages: []sdk.Message{
		{Role: sdk.RoleUser, Parts: []sdk.Part{sdk.Text{Text: "Hi"}}},
		{Role: sdk.RoleAssistant, Parts: []sdk.Part{sdk.Text{Text: "Hello."}}},
		{Role: sdk.RoleUser, Parts: []sdk.Part{sdk.Text{Text: "Bye"}}},
	}}
	events, err := generate(t, p, req)
	if err != nil {
		t.Fatalf("Generate: %v", err)
	}
	want := "you said: System:\nBe terse.\n\nUser:\nHi\n\nAssistant:\nHello.\n\nUser:\nBye"
	if got := answer(events); got != want {
		t.Errorf("answer %q, want %q", got, want)
	}
}

// TestConformance runs the sdk provider suite over real go-plugin gRPC,
// with the fake client streaming JSON lines.
func TestConformance(t *testing.T) {
	home := fakeHome(t, true)
	tmp := t.TempDir()
	sdktest.ProviderConformance(t, sdktest.ProviderSuite{
		New: func() sdk.Provider {
			return &cli{getenv: func(k string) string {
				return map[string]string{"HOME": home, "TMPDIR": tmp}[k]
			}}
		},
		Config: values(t, parseJSONL, nil),
	})
}
