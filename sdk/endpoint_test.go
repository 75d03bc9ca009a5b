package sdk_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/axonhq/axon/sdk"
	"github.com/axonhq/axon/sdk/sdktest"
)

// endpoint is an Endpoint configured on an egress to h.
func endpoint(t *testing.T, h http.Handler, stream string) (*sdk.Endpoint, *sdktest.FakeEgress) {
	t.Helper()
	egress := sdktest.NewFakeEgress(t, h)
	e := &sdk.Endpoint{Name: "test", BaseURL: "https://api.example.test/v1", Stream: stream,
		Header: http.Header{"X-Extra": {"1"}}}
	if err := e.Configure(sdk.Config{Egress: egress}); err != nil {
		t.Fatal(err)
	}
	return e, egress
}

// reply answers with a content type and a body.
func reply(contentType, body string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header()["Content-Type"] = []string{contentType} // set even when empty: no sniffing
		io.WriteString(w, body)
	})
}

// TestEndpointPost: the request as the upstream sees it, and the reply as
// the decoder gets it.
func TestEndpointPost(t *testing.T) {
	t.Parallel()
	e, egress := endpoint(t, reply("text/event-stream", "data: {}\n\n"), "")
	var got string
	var sent []byte
	err := e.Post(context.Background(), "/chat", map[string]string{"text": "a <b> & c"}, func(r *sdk.Reply) error {
		b, err := io.ReadAll(r.Body)
		got, sent = string(b), r.Request
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if got != "data: {}\n\n" {
		t.Errorf("reply body %q", got)
	}
	reqs := egress.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	r := reqs[0]
	if r.Method != http.MethodPost || r.URL != "https://api.example.test/v1/chat" {
		t.Errorf("request %s %s, want POST https://api.example.test/v1/chat", r.Method, r.URL)
	}
	for h, want := range map[string]string{
		"Content-Type": "application/json",
		"Accept":       "text/event-stream, application/json",
		"X-Extra":      "1",
	} {
		if v := r.Header.Get(h); v != want {
			t.Errorf("header %s = %q, want %q", h, v, want)
		}
	}
	if want := `{"text":"a <b> & c"}`; string(r.Body) != want || string(sent) != want {
		t.Errorf("body sent %s, reported %s, want %s", r.Body, sent, want)
	}
}

// TestEndpointReplyJSON: how Post tells one JSON document from a stream.
func TestEndpointReplyJSON(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, stream, contentType, body string
		want                            bool
	}{
		{"json", "", "application/json", `{}`, true},
		{"json with parameters", "", "application/json; charset=utf-8", `{}`, true},
		{"a +json type", "", "application/problem+json", `{}`, true},
		{"event stream", "", "text/event-stream", `data: {}`, false},
		{"event stream that starts like JSON", "", "text/event-stream", `{}`, false},
		{"no type, an object", "", "", "\r\n {\"a\":1}", true},
		{"no type, an array", "", "", `[{}]`, true},
		{"no type, events", "", "", "data: {}\n\n", false},
		{"text/plain, an object", "", "text/plain", `{}`, true},
		{"empty body", "", "", ``, false},
		{"ndjson", sdk.MediaNDJSON, "application/x-ndjson", `{"a":1}`, false},
		{"ndjson server, json reply", sdk.MediaNDJSON, "application/json", `{"a":1}`, true},
		{"ndjson server, no type: the type alone decides", sdk.MediaNDJSON, "", `{"a":1}`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e, egress := endpoint(t, reply(c.contentType, c.body), c.stream)
			var got bool
			if err := e.Post(context.Background(), "/", nil, func(r *sdk.Reply) error { got = r.JSON; return nil }); err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("JSON = %t, want %t", got, c.want)
			}
			if c.stream == sdk.MediaNDJSON {
				if accept := egress.Requests()[0].Header.Get("Accept"); accept != "application/x-ndjson, application/json" {
					t.Errorf("Accept %q", accept)
				}
			}
		})
	}
}

// TestEndpointStatusError: a non-2xx reply goes to StatusError with its
// status, headers, bounded body and the endpoint's clock; without one, the
// status alone classifies it.
func TestEndpointStatusError(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	long := strings.Repeat("x", sdk.MaxErrorBody+10)
	h := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Retry-After", "7")
		w.WriteHeader(http.StatusTooManyRequests)
		io.WriteString(w, long)
	})

	e, _ := endpoint(t, h, "")
	e.Now = func() time.Time { return now }
	var gotStatus, gotLen int
	var gotNow time.Time
	e.StatusError = func(status int, hd http.Header, body []byte, n time.Time) *sdk.Error {
		gotStatus, gotLen, gotNow = status, len(body), n
		return &sdk.Error{Class: sdk.ClassQuotaExhausted, Status: status}
	}
	err := e.Post(context.Background(), "/", nil, func(*sdk.Reply) error { t.Error("read called for a 429"); return nil })
	if sdk.ClassOf(err) != sdk.ClassQuotaExhausted || gotStatus != 429 || gotLen != sdk.MaxErrorBody || !gotNow.Equal(now) {
		t.Errorf("error %v; StatusError got status %d, %d body bytes, now %v", err, gotStatus, gotLen, gotNow)
	}

	plain, _ := endpoint(t, h, "")
	err = plain.Post(context.Background(), "/", nil, func(*sdk.Reply) error { return nil })
	want := &sdk.Error{Class: sdk.ClassTransient, Status: 429, Message: "test: HTTP 429", RetryAfter: 7 * time.Second}
	if diff := cmp.Diff(want, err); diff != "" {
		t.Errorf("default classification (-want +got):\n%s", diff)
	}
}

// TestEndpointFailures: failures before and around the reply, classified.
func TestEndpointFailures(t *testing.T) {
	t.Parallel()
	refused := errors.New("dial tcp: connection refused")
	for _, c := range []struct {
		name   string
		egress error // the egress fails with it; nil: the upstream answers
		read   error
		cancel bool
		check  func(error) bool
	}{
		{"connection refused", refused, nil, false, func(err error) bool {
			return sdk.ClassOf(err) == sdk.ClassTransient && !strings.Contains(err.Error(), "refused")
		}},
		{"the egress's verdict", sdk.ErrEgressDenied, nil, false, func(err error) bool { return errors.Is(err, sdk.ErrEgressDenied) }},
		{"cancelled before a response", refused, nil, true, func(err error) bool { return errors.Is(err, context.Canceled) }},
		{"the decoder's error", nil, sdk.ErrNoText, false, func(err error) bool { return errors.Is(err, sdk.ErrNoText) }},
		{"cancelled while reading", nil, sdk.ErrCutStream, true, func(err error) bool { return err == context.Canceled }},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var egress sdk.Egress = sdktest.NewFakeEgress(t, reply("application/json", "{}"))
			if c.egress != nil {
				egress = sdktest.EgressFunc(func(context.Context, *sdk.EgressRequest) (*sdk.EgressResponse, error) {
					if c.cancel {
						cancel()
					}
					return nil, c.egress
				})
			}
			e := &sdk.Endpoint{Name: "test", BaseURL: "https://api.example.test"}
			if err := e.Configure(sdk.Config{Egress: egress}); err != nil {
				t.Fatal(err)
			}
			err := e.Post(ctx, "/", nil, func(*sdk.Reply) error {
				if c.cancel {
					cancel()
				}
				return c.read
			})
			if !c.check(err) {
				t.Errorf("error %v (%T)", err, err)
			}
		})
	}
}

// TestEndpointNotConfigured: without an egress, Configure and Post fail
// permanently and say why.
func TestEndpointNotConfigured(t *testing.T) {
	t.Parallel()
	e := &sdk.Endpoint{Name: "test", BaseURL: "https://api.example.test"}
	if err := e.Configure(sdk.Config{}); sdk.ClassOf(err) != sdk.ClassPermanent || !strings.Contains(err.Error(), "no egress") {
		t.Errorf("Configure without an egress: %v", err)
	}
	if err := e.Post(context.Background(), "/", nil, nil); sdk.ClassOf(err) != sdk.ClassPermanent {
		t.Errorf("Post without an egress: %v", err)
	}
	if err := (&sdk.Endpoint{}).Post(context.Background(), "/", nil, nil); sdk.ClassOf(err) != sdk.ClassPermanent {
		t.Errorf("Post on a zero Endpoint: %v", err)
	}
	configured, egress := endpoint(t, reply("application/json", "{}"), "")
	if err := configured.Post(context.Background(), "/", func() {}, nil); sdk.ClassOf(err) != sdk.ClassPermanent || len(egress.Requests()) != 0 {
		t.Errorf("Post of a value that does not encode: %v, %d requests", err, len(egress.Requests()))
	}
}

// endBody is a reply body that records how its reader left it: read to
// its end, or closed before.
type endBody struct {
	r        io.Reader
	ctx      context.Context
	hold     bool // after the bytes, wait for the request's end instead of EOF
	eof      bool
	canceled bool
}

func (b *endBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err == io.EOF && b.hold {
		<-b.ctx.Done()
		b.canceled = true
		return n, b.ctx.Err()
	}
	if err == io.EOF {
		b.eof = true
	}
	return n, err
}

func (b *endBody) Close() error { return nil }

// TestEndpointPostDrainsAFinishedReply: a decoder that stops at its
// terminal event leaves the rest of the body; Post reads it to the end
// before closing, so the egress sees a finished request, not a cancelled
// one. An upstream that holds the body open is cut after a short grace.
func TestEndpointPostDrainsAFinishedReply(t *testing.T) {
	t.Parallel()
	for _, hold := range []bool{false, true} {
		var body *endBody
		e := &sdk.Endpoint{Name: "test", BaseURL: "https://api.example.test/v1"}
		egress := sdktest.EgressFunc(func(ctx context.Context, _ *sdk.EgressRequest) (*sdk.EgressResponse, error) {
			body = &endBody{r: strings.NewReader("data: [DONE]\n\n: trailing keep-alive\n\n"), ctx: ctx, hold: hold}
			return &sdk.EgressResponse{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: body}, nil
		})
		if err := e.Configure(sdk.Config{Egress: egress}); err != nil {
			t.Fatal(err)
		}
		err := e.Post(context.Background(), "/chat", struct{}{}, func(r *sdk.Reply) error {
			_, err := r.Body.ReadString('\n') // the terminal event, and no further
			return err
		})
		if err != nil {
			t.Fatalf("hold=%v: %v", hold, err)
		}
		if !hold && (!body.eof || body.canceled) {
			t.Errorf("the body was not read to its end before it was closed")
		}
		if hold && !body.canceled {
			t.Errorf("an upstream that holds the body open did not have its request ended")
		}
	}
}
