package api

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/axonhq/axon/sdk"
)

// TestTaskHint: the x-axon-task header, else metadata.task in either wire
// format's body, reaches the backend with the request; the rest of
// metadata is the client's own; a metadata.task that is not a string is a
// clear 400.
func TestTaskHint(t *testing.T) {
	t.Parallel()
	const (
		chat     = "/v1/chat/completions"
		messages = "/v1/messages"
	)
	openai := func(meta string) string {
		return `{"model":"default","messages":[{"role":"user","content":"hi"}]` + meta + `}`
	}
	anthropic := func(meta string) string {
		return `{"model":"default","max_tokens":8,"messages":[{"role":"user","content":"hi"}]` + meta + `}`
	}
	for _, tc := range []struct {
		name, path, body, header string
		want                     string
		status                   int
		wantMsg                  string
	}{
		{"openai, none", chat, openai(""), "", "", 200, ""},
		{"openai, metadata", chat, openai(`,"metadata":{"task":"code","user":"me"}`), "", "code", 200, ""},
		{"openai, header", chat, openai(""), "chat", "chat", 200, ""},
		{"openai, the header wins", chat, openai(`,"metadata":{"task":"code"}`), "chat", "chat", 200, ""},
		{"openai, null task", chat, openai(`,"metadata":{"task":null}`), "", "", 200, ""},
		{"anthropic, metadata", messages, anthropic(`,"metadata":{"user_id":"u1","task":"code"}`), "", "code", 200, ""},
		{"anthropic, header", messages, anthropic(""), "code", "code", 200, ""},
		{"openai, a number", chat, openai(`,"metadata":{"task":7}`), "", "", 400, "metadata.task: want a string"},
		{"anthropic, metadata not an object", messages, anthropic(`,"metadata":"code"`), "", "", 400, "metadata: want a JSON object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			got := "unset"
			b := &fakeBackend{gen: func(ctx context.Context, _ string, _ *sdk.Request, out sdk.Sink, commit func(Answer)) (*Answer, error) {
				mu.Lock()
				got = TaskOf(ctx)
				mu.Unlock()
				commit(Answer{Provider: "glm", Chain: "default"})
				for _, ev := range []sdk.Event{{Type: sdk.EventTextDelta, Text: "ok"}, {Type: sdk.EventFinish, Finish: sdk.FinishStop}} {
					if err := out.Send(ctx, ev); err != nil {
						return nil, err
					}
				}
				return &Answer{Provider: "glm", Chain: "default"}, nil
			}}
			srv := newServer(t, b)
			var header []string
			if tc.header != "" {
				header = []string{TaskHeader, tc.header}
			}
			resp := post(t, srv, tc.path, tc.body, header...)
			body := readAll(t, resp.Body)
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d: %s", resp.StatusCode, body)
			}
			if tc.status != http.StatusOK {
				if !strings.Contains(body, tc.wantMsg) {
					t.Errorf("body %s lacks %q", body, tc.wantMsg)
				}
				return
			}
			mu.Lock()
			defer mu.Unlock()
			if got != tc.want {
				t.Errorf("task %q, want %q", got, tc.want)
			}
		})
	}
}
