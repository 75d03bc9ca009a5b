package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/axonhq/axon/sdk"
	"github.com/axonhq/axon/sdk/sdktest"
)

// failingEgress refuses every request the way the host's egress can.
type failingEgress struct{ err error }

func (e failingEgress) Do(context.Context, *sdk.EgressRequest) (*sdk.EgressResponse, error) {
	return nil, e.err
}

// cutEgress answers 200 text/plain with body, then fails the read with err.
type cutEgress struct {
	body string
	err  error
}

func (e cutEgress) Do(context.Context, *sdk.EgressRequest) (*sdk.EgressResponse, error) {
	r := io.MultiReader(strings.NewReader(e.body), errReader{e.err})
	return &sdk.EgressResponse{StatusCode: 200, Header: http.Header{"Content-Type": {"text/plain"}}, Body: io.NopCloser(r)}, nil
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

// TestEgressFailures: what the host's egress reports, carried across the
// plugin boundary, reaches the model as a short error result (or, for a
// host-side size limit, as a truncated page), never as a Go error.
func TestEgressFailures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		egress    sdk.Egress
		want      string
		wantError bool
	}{
		{
			name:      "host denies the origin",
			egress:    failingEgress{&sdk.Error{Class: sdk.ClassPermanent, Code: "egress_denied", Message: "docs.example.com is not allowed"}},
			want:      "the host refused to fetch https://docs.example.com/a: its origin is not in the tool block's egress allow list",
			wantError: true,
		},
		{
			name:      "host times out",
			egress:    failingEgress{&sdk.Error{Class: sdk.ClassTransient, Code: "timeout", Message: "no response headers within 30s"}},
			want:      "timed out fetching https://docs.example.com/a",
			wantError: true,
		},
		{
			name:      "connection fails",
			egress:    failingEgress{sdk.Transientf("connection reset by peer")},
			want:      "fetching https://docs.example.com/a failed: transient: connection reset by peer",
			wantError: true,
		},
		{
			name:   "host size limit cuts the body",
			egress: cutEgress{body: "first part", err: &sdk.Error{Class: sdk.ClassPermanent, Code: "egress_limit", Message: "response over 10 bytes"}},
			want:   "first part\n\n[truncated: the response is longer; the text above comes from its first 10 bytes]",
		},
		{
			name:      "body breaks off",
			egress:    cutEgress{body: "first part", err: sdk.Transientf("stream reset")},
			want:      "the response from https://docs.example.com/a broke off: transient: stream reset",
			wantError: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tool := sdktest.Serve(t, sdk.KindTool, &fetcher{}, json.RawMessage(testConfig), tt.egress).Tool(t)
			res, err := tool.Call(context.Background(), sdk.Invocation{CallID: "c1", Name: toolFetch, Input: json.RawMessage(`{"url":"https://docs.example.com/a"}`)})
			if err != nil {
				t.Fatalf("Call returned a Go error, want a result: %v", err)
			}
			if got := sdk.TextOf(res.Content); got != tt.want || res.IsError != tt.wantError {
				t.Errorf("got %q (error %v), want %q (error %v)", got, res.IsError, tt.want, tt.wantError)
			}
		})
	}
}

// TestCallerCancel: when the caller gives up, that is not the model's
// business: Call returns a Go error.
func TestCallerCancel(t *testing.T) {
	t.Parallel()
	started := make(chan struct{})
	egress := sdktest.NewFakeEgress(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		<-r.Context().Done()
	}))
	f := &fetcher{}
	if err := f.Configure(context.Background(), sdk.Config{Values: json.RawMessage(testConfig), Egress: egress}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-started
		cancel()
	}()
	_, err := f.Call(ctx, sdk.Invocation{CallID: "c1", Name: toolFetch, Input: json.RawMessage(`{"url":"https://docs.example.com/slow"}`)})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Call error %v, want context.Canceled", err)
	}
}

func TestConfigure(t *testing.T) {
	t.Parallel()
	egress := failingEgress{}
	tests := []struct {
		name    string
		values  string
		egress  sdk.Egress
		wantErr string
	}{
		{name: "valid", values: testConfig, egress: egress},
		{name: "no egress", values: testConfig, wantErr: "no egress"},
		{name: "allow missing", values: `{}`, egress: egress, wantErr: "at least one origin"},
		{name: "allow empty", values: `{"allow":[]}`, egress: egress, wantErr: "at least one origin"},
		{name: "allow entry with a path", values: `{"allow":["https://example.com/docs"]}`, egress: egress, wantErr: "want an origin"},
		{name: "max_bytes zero", values: `{"allow":["example.com"],"max_bytes":0}`, egress: egress, wantErr: "max_bytes"},
		{name: "max_bytes huge", values: `{"allow":["example.com"],"max_bytes":1e9}`, egress: egress, wantErr: "max_bytes"},
		{name: "wrong type", values: `{"allow":"example.com"}`, egress: egress, wantErr: "decode"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := (&fetcher{}).Configure(context.Background(), sdk.Config{Values: json.RawMessage(tt.values), Egress: tt.egress})
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Configure: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || sdk.ClassOf(err) != sdk.ClassPermanent {
				t.Fatalf("Configure error %v, want a permanent one containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestCallBeforeConfigure(t *testing.T) {
	t.Parallel()
	if _, err := (&fetcher{}).Call(context.Background(), sdk.Invocation{Name: toolFetch}); err == nil {
		t.Fatal("Call before Configure succeeded")
	}
}
