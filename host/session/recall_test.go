package session

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/axonhq/axon/sdk"
)

func TestRecallKeyPattern(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		key  string
		want bool
	}{
		{"door-code", true}, {"API_key_2", true}, {"-", true}, {strings.Repeat("k", 128), true},
		{"", false}, {"..", false}, {".", false}, {"../secret", false}, {"a/b", false}, {"/etc/passwd", false},
		{`a\b`, false}, {`..\..\x`, false}, {"ключ", false}, {"café", false}, {"a b", false}, {"a.txt", false},
		{"a\x00b", false}, {"a\n", false}, {strings.Repeat("k", 129), false}, {"~", false},
	} {
		if got := ValidRecallKey(c.key); got != c.want {
			t.Errorf("ValidRecallKey(%q) = %v, want %v", c.key, got, c.want)
		}
	}
}

func TestRecallAnswersNotFound(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	vault := filepath.Join(root, "vault")
	if err := os.Mkdir(vault, 0o700); err != nil {
		t.Fatal(err)
	}
	write := func(path, text string) {
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(vault, "door-code"), "4711\n")
	write(filepath.Join(root, "outside"), "not yours")
	write(filepath.Join(vault, "huge"), strings.Repeat("x", maxRecallValue+1))
	if err := os.Symlink(filepath.Join(root, "outside"), filepath.Join(vault, "escape")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(vault, "adir"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(vault, "fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	write(filepath.Join(vault, "locked"), "x")
	if err := os.Chmod(filepath.Join(vault, "locked"), 0); err != nil {
		t.Fatal(err)
	}

	rc := NewRecall(vault)
	for _, c := range []struct {
		name, input, want string
	}{
		{"a stored value", `{"key":"door-code"}`, "4711"},
		{"missing", `{"key":"nothing-here"}`, recallNotFound},
		{"dot dot", `{"key":".."}`, recallNotFound},
		{"path", `{"key":"../outside"}`, recallNotFound},
		{"backslash", `{"key":"..\\outside"}`, recallNotFound},
		{"empty", `{"key":""}`, recallNotFound},
		{"non-ASCII", `{"key":"dóor"}`, recallNotFound},
		{"symlink out of the vault", `{"key":"escape"}`, recallNotFound},
		{"a directory", `{"key":"adir"}`, recallNotFound},
		{"a FIFO (must not block)", `{"key":"fifo"}`, recallNotFound},
		{"over the size limit", `{"key":"huge"}`, recallNotFound},
		{"not JSON", `key`, recallNotFound},
		{"no key", `{}`, recallNotFound},
	} {
		res, err := rc.Call(context.Background(), sdk.Invocation{CallID: "c", Name: "recall", Input: json.RawMessage(c.input)})
		if err != nil {
			t.Errorf("%s: error %v: recall never fails, it answers not found", c.name, err)
			continue
		}
		if got := sdk.TextOf(res.Content); got != c.want || res.IsError {
			t.Errorf("%s: %q (is_error %v), want %q", c.name, got, res.IsError, c.want)
		}
	}
	if os.Geteuid() != 0 { // root reads anything: the mode proves nothing then
		res, _ := rc.Call(context.Background(), sdk.Invocation{Input: json.RawMessage(`{"key":"locked"}`)})
		if got := sdk.TextOf(res.Content); got != recallNotFound {
			t.Errorf("unreadable file: %q, want not found", got)
		}
	}
	gone := NewRecall(filepath.Join(root, "no-vault"))
	if res, err := gone.Call(context.Background(), sdk.Invocation{Input: json.RawMessage(`{"key":"door-code"}`)}); err != nil || sdk.TextOf(res.Content) != recallNotFound {
		t.Errorf("missing vault: %v %v, want not found", res, err)
	}
}

// The run stores the recalled value (the model needs it) but the control
// lane withholds it from subscribers.
func TestRecallResultIsWithheldFromEvents(t *testing.T) {
	t.Parallel()
	vault := t.TempDir()
	if err := os.WriteFile(filepath.Join(vault, "pin"), []byte("secret-1234"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := newRig(t, toolSteps("ok", []sdk.ToolCall{call("c", "recall", `{"key":"pin"}`)}), map[string]Tool{RecallBlock: NewRecall(vault)})
	evs := r.wait(r.send(Params{Prompt: "p", Tools: []string{RecallBlock}}))
	for _, e := range evs {
		if b, _ := json.Marshal(e); strings.Contains(string(b), "secret-1234") {
			t.Errorf("event %s shows the secret: %s", e.Type, b)
		}
	}
	reqs := r.model.requests()
	last := reqs[len(reqs)-1].Messages
	if got := sdk.TextOf(last[len(last)-1].Parts[0].(sdk.ToolResult).Content); got != "secret-1234" {
		t.Errorf("model got %q, want the value", got)
	}
}
