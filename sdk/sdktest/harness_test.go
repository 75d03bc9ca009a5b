package sdktest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/axonhq/axon/sdk"
)

// relay is a provider that POSTs the prompt's size worth of bytes through
// its egress and reports what came back.
type relay struct{ egress sdk.Egress }

func (r *relay) Info() sdk.Info { return sdk.Info{Name: "relay", Version: "0"} }
func (r *relay) Configure(_ context.Context, c sdk.Config) error {
	r.egress = c.Egress
	return nil
}
func (r *relay) Generate(ctx context.Context, req *sdk.Request, out sdk.Sink) error {
	body := bytes.Repeat([]byte("x"), len(sdk.TextOf(req.Messages[0].Parts))*1000)
	hr, _ := http.NewRequestWithContext(ctx, "POST", "https://api.example.com/v1/echo", bytes.NewReader(body))
	hr.Header.Set("Authorization", "Bearer smuggled")
	resp, err := sdk.HTTPClient(r.egress).Do(hr)
	if err != nil {
		return fmt.Errorf("relay: %w", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if err := out.Send(ctx, sdk.Event{Type: sdk.EventTextDelta, Text: fmt.Sprintf("%d %s", resp.StatusCode, b)}); err != nil {
		return err
	}
	return out.Send(ctx, sdk.Event{Type: sdk.EventFinish, Finish: sdk.FinishStop})
}

func generate(t *testing.T, p interface {
	Generate(context.Context, *sdk.Request, sdk.Sink) error
}, prompt string) (string, error) {
	var text string
	err := p.Generate(context.Background(), &sdk.Request{Messages: []sdk.Message{{Role: sdk.RoleUser, Parts: []sdk.Part{sdk.Text{Text: prompt}}}}},
		sdk.SinkFunc(func(_ context.Context, ev sdk.Event) error { text += ev.Text; return nil }))
	return text, err
}

// TestEgressOverTheBroker sends a 300 KB request body from the plugin
// through the broker-served egress and gets the upstream's digest back.
func TestEgressOverTheBroker(t *testing.T) {
	t.Parallel()
	fake := NewFakeEgress(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		sum := sha256.Sum256(b)
		fmt.Fprintf(w, "%d %s auth=%q", len(b), hex.EncodeToString(sum[:4]), r.Header.Get("Authorization"))
	}))
	p := Serve(t, sdk.KindProvider, &relay{}, nil, fake).Provider(t)
	text, err := generate(t, p, string(make([]byte, 300)))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(bytes.Repeat([]byte("x"), 300_000))
	want := fmt.Sprintf("200 300000 %s auth=\"\"", hex.EncodeToString(sum[:4]))
	if text != want {
		t.Errorf("got %q, want %q", text, want)
	}
}

// denying is an egress that refuses everything, as the host does for a
// host off the allow list.
type denying struct{}

func (denying) Do(context.Context, *sdk.EgressRequest) (*sdk.EgressResponse, error) {
	return nil, &sdk.Error{Class: sdk.ClassPermanent, Code: sdk.ErrEgressDenied.Code, Message: "egress denied: GET api.example.com"}
}

// TestEgressErrorsKeepTheirClass: the egress error crosses the broker to
// the plugin, and the plugin's wrapped error crosses back to the host.
func TestEgressErrorsKeepTheirClass(t *testing.T) {
	t.Parallel()
	p := Serve(t, sdk.KindProvider, &relay{}, nil, denying{}).Provider(t)
	_, err := generate(t, p, "x")
	if !errors.Is(err, sdk.ErrEgressDenied) || !errors.Is(err, sdk.ErrPermanent) {
		t.Fatalf("got %v, want egress denied (permanent) on the host side", err)
	}
}
