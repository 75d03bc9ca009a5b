package sdktest

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"testing"

	"github.com/axonhq/axon/sdk"
)

// ProviderSuite describes a provider to ProviderConformance.
type ProviderSuite struct {
	// New returns a fresh, unconfigured provider.
	New func() sdk.Provider
	// Config holds plugin-owned values (a JSON object); schema defaults
	// are applied on top.
	Config json.RawMessage
	// Upstream, when set, stands in for the provider's API: every egress
	// request is routed to it. It must answer Request (or the suite's
	// default one-line prompt) with a successful reply.
	Upstream http.Handler
	// Request is the request the suite sends; nil means a one-line prompt.
	Request *sdk.Request
}

// ProviderConformance runs the checks every provider must pass, over real
// go-plugin gRPC in-process:
//   - Info (as the host sees it): name, kind, schema and auth are well formed;
//   - Generate: events end with exactly one finish; text or a tool call came
//     before it; tool calls carry complete JSON and distinct indices; usage
//     counts are not negative;
//   - a cancelled context ends Generate with an error instead of a hang;
//   - when Upstream is set, upstream HTTP 500 and 401 answers become
//     classified errors (transient and auth_required) that survive the
//     plugin boundary.
func ProviderConformance(t *testing.T, s ProviderSuite) {
	t.Helper()
	req := s.Request
	if req == nil {
		req = &sdk.Request{Messages: []sdk.Message{{Role: sdk.RoleUser, Parts: []sdk.Part{sdk.Text{Text: "Say hello."}}}}}
	}
	connect := func(t *testing.T, upstream http.Handler) *Conn {
		var egress sdk.Egress
		if upstream != nil {
			egress = NewFakeEgress(t, upstream)
		}
		return Serve(t, sdk.KindProvider, s.New(), s.Config, egress)
	}

	t.Run("info", func(t *testing.T) {
		checkInfo(t, sdk.KindProvider, connect(t, s.Upstream).Info)
	})

	t.Run("generate", func(t *testing.T) {
		p := connect(t, s.Upstream).Provider(t)
		var events []sdk.Event
		err := p.Generate(context.Background(), req, sdk.SinkFunc(func(_ context.Context, ev sdk.Event) error {
			events = append(events, ev)
			return nil
		}))
		if err != nil {
			t.Fatalf("Generate: %v", err)
		}
		CheckEvents(t, events)
	})

	t.Run("cancelled", func(t *testing.T) {
		p := connect(t, s.Upstream).Provider(t)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		err := p.Generate(ctx, req, sdk.SinkFunc(func(ctx context.Context, _ sdk.Event) error { return ctx.Err() }))
		if err == nil {
			t.Fatal("Generate with a cancelled context returned no error")
		}
	})

	if s.Upstream == nil {
		return
	}
	for _, c := range []struct {
		status int
		want   *sdk.Error
	}{
		{http.StatusInternalServerError, sdk.ErrTransient},
		{http.StatusUnauthorized, sdk.ErrAuthRequired},
	} {
		t.Run("upstream "+http.StatusText(c.status), func(t *testing.T) {
			p := connect(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(c.status)
				w.Write([]byte(`{"error":{"type":"error","message":"conformance"}}`))
			})).Provider(t)
			err := p.Generate(context.Background(), req, sdk.SinkFunc(func(context.Context, sdk.Event) error { return nil }))
			if !errors.Is(err, c.want) {
				t.Fatalf("upstream %d: got %v, want class %s", c.status, err, c.want.Class)
			}
		})
	}
}

// CheckEvents asserts the stream invariants of a successful Generate.
func CheckEvents(t testing.TB, events []sdk.Event) {
	t.Helper()
	if len(events) == 0 {
		t.Fatal("no events")
	}
	finishes, content := 0, 0
	indices := map[int]bool{}
	for i, ev := range events {
		switch ev.Type {
		case sdk.EventFinish:
			finishes++
			if i != len(events)-1 {
				t.Errorf("event %d: finish is not the last event", i)
			}
			if ev.Finish == "" {
				t.Errorf("event %d: finish without a reason", i)
			}
		case sdk.EventTextDelta:
			content++
		case sdk.EventToolCall:
			content++
			if ev.ToolCall == nil || ev.ToolCall.Name == "" {
				t.Errorf("event %d: tool call without a name", i)
				continue
			}
			if !json.Valid(ev.ToolCall.Input) {
				t.Errorf("event %d: tool call input %q is not complete JSON", i, ev.ToolCall.Input)
			}
			if indices[ev.Index] {
				t.Errorf("event %d: tool call index %d used twice", i, ev.Index)
			}
			indices[ev.Index] = true
		case sdk.EventUsage:
			checkUsage(t, i, ev.Usage)
		case sdk.EventStart, sdk.EventReasoningDelta:
		default:
			t.Errorf("event %d: unknown type %q", i, ev.Type)
		}
	}
	if finishes != 1 {
		t.Errorf("%d finish events, want exactly 1", finishes)
	}
	if content == 0 {
		t.Error("no text and no tool call before finish")
	}
}

func checkUsage(t testing.TB, i int, u *sdk.Usage) {
	t.Helper()
	if u == nil {
		t.Errorf("event %d: usage event without usage", i)
		return
	}
	for _, n := range []*int64{u.InputTokens, u.OutputTokens, u.CacheReadTokens, u.CacheWriteTokens} {
		if n != nil && *n < 0 {
			t.Errorf("event %d: negative token count %d", i, *n)
		}
	}
}
