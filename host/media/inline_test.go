package media

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/axonhq/axon/sdk"
)

func TestInlineReplacesURLPartsEverywhere(t *testing.T) {
	t.Parallel()
	img := newServer(t, serve("image/png", png))
	doc := newServer(t, serve("application/pdf", []byte("%PDF-1.7")))
	s := fetcher(t, allowing(img, doc)).NewSession(context.Background())
	req := &sdk.Request{Messages: []sdk.Message{
		{Role: sdk.RoleUser, Parts: []sdk.Part{
			sdk.Text{Text: "look"},
			sdk.Image{URL: img.URL + "/a.png", Cache: sdk.Cache5m},
			&sdk.Image{URL: img.URL + "/b.png"},
			sdk.Image{MediaType: "image/gif", Data: []byte("GIF89a")}, // inline already: untouched
			sdk.Document{URL: doc.URL + "/d.pdf", Title: "spec"},
		}},
		{Role: sdk.RoleTool, Parts: []sdk.Part{
			sdk.ToolResult{CallID: "c1", Content: []sdk.Part{sdk.Image{URL: img.URL + "/a.png"}}},
		}},
	}}
	if !HasURLParts(req) {
		t.Fatal("HasURLParts missed the URL parts")
	}
	if err := s.Inline(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	want := []sdk.Message{
		{Role: sdk.RoleUser, Parts: []sdk.Part{
			sdk.Text{Text: "look"},
			sdk.Image{MediaType: "image/png", Data: png, Cache: sdk.Cache5m},
			sdk.Image{MediaType: "image/png", Data: png},
			sdk.Image{MediaType: "image/gif", Data: []byte("GIF89a")},
			sdk.Document{MediaType: "application/pdf", Data: []byte("%PDF-1.7"), Title: "spec"},
		}},
		{Role: sdk.RoleTool, Parts: []sdk.Part{
			sdk.ToolResult{CallID: "c1", Content: []sdk.Part{sdk.Image{MediaType: "image/png", Data: png}}},
		}},
	}
	if d := cmp.Diff(want, req.Messages); d != "" {
		t.Errorf("inlined request (-want +got):\n%s", d)
	}
	if HasURLParts(req) {
		t.Error("URL parts left after Inline")
	}
	// a.png twice and b.png: each URL once.
	if n := img.calls.Load(); n != 2 {
		t.Errorf("image server called %d times, want 2", n)
	}
}

// TestInlineFetchesOncePerSession: a second hop, or a retry, of the same
// client request fetches nothing again, and a failure is remembered too.
func TestInlineFetchesOncePerSession(t *testing.T) {
	t.Parallel()
	ok := newServer(t, serve("image/png", png))
	bad := newServer(t, serve("text/html", []byte("<html>")))
	s := fetcher(t, allowing(ok, bad)).NewSession(context.Background())
	for range 3 {
		req := &sdk.Request{Messages: []sdk.Message{{Role: sdk.RoleUser, Parts: []sdk.Part{sdk.Image{URL: ok.URL}}}}}
		if err := s.Inline(context.Background(), req); err != nil {
			t.Fatal(err)
		}
		req = &sdk.Request{Messages: []sdk.Message{{Role: sdk.RoleUser, Parts: []sdk.Part{sdk.Image{URL: bad.URL}}}}}
		if err := s.Inline(context.Background(), req); err == nil {
			t.Fatal("html inlined as an image")
		}
	}
	if ok.calls.Load() != 1 || bad.calls.Load() != 1 {
		t.Errorf("calls: ok %d, bad %d; want 1 each", ok.calls.Load(), bad.calls.Load())
	}
}

func TestInlineErrorNamesThePart(t *testing.T) {
	t.Parallel()
	html := newServer(t, serve("text/html", []byte("<html>")))
	text := newServer(t, serve("text/plain", []byte("plain")))
	f := fetcher(t, allowing(html, text))
	for _, c := range []struct {
		name string
		part sdk.Part
		want []string
	}{
		{"image", sdk.Image{URL: html.URL + "/a.png?sig=SECRET"}, []string{
			"messages[0].parts[1]: the image at " + html.URL + "/a.png?… could not be fetched for a provider that takes only inline data",
			"served as text/html, not an image"}},
		{"declared type differs", sdk.Document{MediaType: "application/pdf", URL: text.URL + "/d"}, []string{
			"messages[0].parts[1]: the document at", "declared application/pdf but served as text/plain"}},
		{"in a tool result", sdk.ToolResult{CallID: "c", Content: []sdk.Part{sdk.Text{Text: "x"}, sdk.Image{URL: html.URL}}}, []string{
			"messages[0].parts[1].content.parts[1]: the image at"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			req := &sdk.Request{Messages: []sdk.Message{{Role: sdk.RoleUser, Parts: []sdk.Part{sdk.Text{Text: "hi"}, c.part}}}}
			err := f.NewSession(context.Background()).Inline(context.Background(), req)
			wantErr(t, err, c.want...)
			var e *sdk.Error
			if !errors.As(err, &e) || e.Class != sdk.ClassPermanent || e.Code != CodeFetch {
				t.Errorf("error %#v is not permanent/%s", err, CodeFetch)
			}
			if strings.Contains(err.Error(), "SECRET") {
				t.Error("the error carries the URL's query")
			}
		})
	}
}

func TestInlineRequestLimit(t *testing.T) {
	t.Parallel()
	body := bytes.Repeat([]byte{9}, 600)
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write(body)
	})
	cfg := allowing(s)
	cfg.MaxPartBytes, cfg.MaxRequestBytes = 1000, 1024
	req := &sdk.Request{Messages: []sdk.Message{{Role: sdk.RoleUser, Parts: []sdk.Part{
		sdk.Image{URL: s.URL + "/1"}, sdk.Image{URL: s.URL + "/2"},
	}}}}
	err := fetcher(t, cfg).NewSession(context.Background()).Inline(context.Background(), req)
	wantErr(t, err, "messages[0].parts[1]", "with the parts before it, it is larger than the 1 KiB limit per request")

	cfg.MaxPartBytes, cfg.MaxRequestBytes = 500, 0
	req = &sdk.Request{Messages: []sdk.Message{{Role: sdk.RoleUser, Parts: []sdk.Part{sdk.Image{URL: s.URL + "/1"}}}}}
	err = fetcher(t, cfg).NewSession(context.Background()).Inline(context.Background(), req)
	wantErr(t, err, "messages[0].parts[0]", "larger than the 500 bytes limit per part")
}

// TestInlineFetchOutlivesTheHop: a hop given up on while its fetch is
// under way (the chain's first-token timer) leaves the fetch running, and
// the next attempt gets its bytes without a second request.
func TestInlineFetchOutlivesTheHop(t *testing.T) {
	t.Parallel()
	arrived, release := make(chan struct{}), make(chan struct{})
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		close(arrived)
		<-release
		w.Header().Set("Content-Type", "image/png")
		w.Write(png)
	})
	var once sync.Once
	unblock := func() { once.Do(func() { close(release) }) }
	t.Cleanup(unblock) // registered after the server's Close: runs before it
	session := fetcher(t, allowing(s)).NewSession(context.Background())
	req := func() *sdk.Request {
		return &sdk.Request{Messages: []sdk.Message{{Role: sdk.RoleUser, Parts: []sdk.Part{sdk.Image{URL: s.URL}}}}}
	}
	hop, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- session.Inline(hop, req()) }()
	<-arrived
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("abandoned hop: %v, want its own cancellation", err)
	}
	unblock()
	next := req()
	if err := session.Inline(context.Background(), next); err != nil {
		t.Fatal(err)
	}
	if img := next.Messages[0].Parts[0].(sdk.Image); !bytes.Equal(img.Data, png) {
		t.Error("the next attempt did not get the bytes")
	}
	if n := s.calls.Load(); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}
