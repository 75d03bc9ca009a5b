package api

import (
	"testing"

	"github.com/axonhq/axon/sdk"
)

// TestDelivery: a request without "stream": true asks the backend for a
// Whole answer (the chain then commits nothing until it is complete), a
// streamed one for Streamed, in both wire formats.
func TestDelivery(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, path, body string
		want             Delivery
	}{
		{"openai whole", "/v1/chat/completions", `{"model":"default","messages":[{"role":"user","content":"hi"}]}`, Whole},
		{"openai streamed", "/v1/chat/completions", `{"model":"default","stream":true,"messages":[{"role":"user","content":"hi"}]}`, Streamed},
		{"anthropic whole", "/v1/messages", `{"model":"default","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`, Whole},
		{"anthropic streamed", "/v1/messages", `{"model":"default","max_tokens":5,"stream":true,"messages":[{"role":"user","content":"hi"}]}`, Streamed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := &fakeBackend{delivery: -1, events: []sdk.Event{text("hi"), finish(sdk.FinishStop)}}
			srv := newServer(t, b)
			resp := post(t, srv, tc.path, tc.body)
			readAll(t, resp.Body)
			if resp.StatusCode != 200 {
				t.Fatalf("status %d", resp.StatusCode)
			}
			if got := b.askedDelivery(); got != tc.want {
				t.Errorf("delivery %d, want %d", got, tc.want)
			}
		})
	}
}
