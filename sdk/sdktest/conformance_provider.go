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
	// Replay, when set, holds recorded replies, each served in turn as the
	// upstream; Golden names the golden file of a fixture (by Fixture.Name).
	Replay []Fixture
	Golden func(name string) string
}

// generator is what the suite calls Generate on: the provider itself
// (in-process) or the host-side handle of it served over go-plugin gRPC.
type generator interface {
	Generate(ctx context.Context, req *sdk.Request, out sdk.Sink) error
}

// ProviderConformance runs the checks every provider must pass. Unless
// marked in-process, a check runs over real go-plugin gRPC in-process, as
// the host sees the plugin:
//   - Info (as the host sees it): name, kind, schema and auth are well formed;
//   - Generate: events end with exactly one finish; text or a tool call came
//     before it; tool calls carry complete JSON and distinct indices; usage
//     counts are not negative;
//   - a cancelled context ends Generate with an error instead of a hang.
//
// When Upstream is set (the provider talks to an API), also:
//   - upstream HTTP 500 and 401 answers become classified errors (transient
//     and auth_required) that keep their status, survive the plugin
//     boundary, and cost exactly one upstream request (no retry inside the
//     plugin: retries are the host's);
//   - cancel mid-stream, both in-process and over gRPC: Upstream is held
//     open after its first write until the request ends, and the caller
//     cancels its context on the first event (a sink that then refuses
//     every later event, as the host's does); Generate returns an error
//     that is context.Canceled, and the upstream request observes the
//     cancellation (its context ends) rather than being leaked;
//   - sink error, both in-process and over gRPC: a sink that fails on the
//     first event makes Generate return that failure (errors.Is), the sink
//     is not called again, and the upstream request (held open as above)
//     is ended, not leaked.
//
// When Replay is set, each fixture is replayed over gRPC and what the host
// sees must match the fixture's golden file exactly (see ReplayGolden):
// events, error class, status and retry hint survive the plugin boundary,
// and nothing is added. Golden files are compared, never rewritten here:
// rewrite them with an in-process replay test.
//
// The suite waits on channels only: no sleeps and no timing thresholds; a
// provider that hangs fails by the test binary's timeout.
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

	if len(s.Replay) > 0 && s.Golden == nil {
		t.Fatal("ProviderSuite: Replay is set but Golden is not")
	}
	for _, f := range s.Replay {
		t.Run("replay/"+f.Name, func(t *testing.T) {
			t.Parallel()
			p := connect(t, f).Provider(t)
			ReplayGolden(t, s.Golden(f.Name), false, func(out sdk.Sink) error {
				return p.Generate(context.Background(), req, out)
			})
		})
	}
	if s.Upstream == nil {
		return
	}
	checkUpstreamStatus(t, s, req)
	for _, target := range []struct {
		where string
		open  func(t testing.TB, upstream http.Handler) generator
	}{
		{"in-process", func(t testing.TB, upstream http.Handler) generator {
			return configureDirect(t, s, NewFakeEgress(t, upstream))
		}},
		{"over grpc", func(t testing.TB, upstream http.Handler) generator {
			return Serve(t, sdk.KindProvider, s.New(), s.Config, NewFakeEgress(t, upstream)).Provider(t)
		}},
	} {
		t.Run("cancel mid-stream "+target.where, func(t *testing.T) {
			checkCancelMidStream(t, s.Upstream, req, target.open)
		})
		t.Run("sink error "+target.where, func(t *testing.T) {
			checkSinkError(t, s.Upstream, req, target.open)
		})
	}
}

// checkUpstreamStatus: error answers from the upstream become classified
// errors on the host's side, after one request.
func checkUpstreamStatus(t *testing.T, s ProviderSuite, req *sdk.Request) {
	t.Helper()
	for _, c := range []struct {
		status int
		want   *sdk.Error
	}{
		{http.StatusInternalServerError, sdk.ErrTransient},
		{http.StatusUnauthorized, sdk.ErrAuthRequired},
	} {
		t.Run("upstream "+http.StatusText(c.status), func(t *testing.T) {
			egress := NewFakeEgress(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(c.status)
				w.Write([]byte(`{"error":{"type":"error","message":"conformance"}}`))
			}))
			p := Serve(t, sdk.KindProvider, s.New(), s.Config, egress).Provider(t)
			err := p.Generate(context.Background(), req, &Recorder{})
			if !errors.Is(err, c.want) {
				t.Fatalf("upstream %d: got %v, want class %s", c.status, err, c.want.Class)
			}
			var e *sdk.Error
			if errors.As(err, &e) && e.Status != c.status {
				t.Errorf("upstream %d: error carries status %d", c.status, e.Status)
			}
			if n := len(egress.Requests()); n != 1 {
				t.Errorf("upstream %d: %d requests, want 1 (the plugin must not retry on its own)", c.status, n)
			}
		})
	}
}

// configureDirect returns a fresh provider configured in-process, the way
// the host would configure it (schema defaults applied), with egress.
func configureDirect(t testing.TB, s ProviderSuite, egress sdk.Egress) sdk.Provider {
	t.Helper()
	p := s.New()
	values, err := ApplyDefaults(p.Info().Config, s.Config)
	if err != nil {
		t.Fatalf("config: %v", err)
	}
	if err := p.Configure(context.Background(), sdk.Config{Values: values, Egress: egress}); err != nil {
		t.Fatalf("Configure: %v", err)
	}
	return p
}

// CheckEvents asserts the stream invariants of a successful Generate.
func CheckEvents(t testing.TB, events []sdk.Event) {
	t.Helper()
	if len(events) == 0 {
		t.Fatal("no events")
	}
	finishes, content := 0, 0
	indices := map[int]bool{}
	begun := false
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
		case sdk.EventToolCallBegin:
			if begun {
				t.Errorf("event %d: a second tool_call_begin (one per reply)", i)
			}
			begun = true
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
