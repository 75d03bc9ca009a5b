package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/axonhq/axon/sdk"
	"github.com/axonhq/axon/sdk/sdktest"
)

const testConfig = `{"allow":["docs.example.com","http://api.example.com:8080"]}`

// site is the upstream every test fetch reaches through the fake egress.
func site(t *testing.T) http.Handler {
	t.Helper()
	article, err := os.ReadFile("testdata/article.html")
	if err != nil {
		t.Fatal(err)
	}
	serve := func(status int, contentType, body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if contentType != "" {
				w.Header().Set("Content-Type", contentType)
			}
			w.WriteHeader(status)
			io.WriteString(w, body)
		}
	}
	mux := http.NewServeMux()
	mux.Handle("/article", serve(200, "text/html; charset=utf-8", string(article)))
	mux.Handle("/data.json", serve(200, "application/json", `{"temp": 21.5, "unit": "C"}`))
	mux.Handle("/notes.txt", serve(200, "text/plain; charset=utf-8", "line one\n  line two\n"))
	mux.Handle("/empty", serve(204, "", ""))
	mux.Handle("/missing", serve(404, "text/html", "<html><title>404</title><h1>Not found</h1><p>No page here.</p></html>"))
	mux.Handle("/broken", serve(500, "application/json", `{"error":"database unavailable"}`))
	mux.Handle("/logo.png", serve(200, "image/png", "\x89PNG\r\n\x1a\n"))
	mux.Handle("/big.txt", serve(200, "text/plain", strings.Repeat("a", defaultMaxBytes+1000)))
	mux.Handle("/big.html", serve(200, "text/html", "<title>Big</title>"+strings.Repeat("<p>para</p>", defaultMaxBytes/10)))
	mux.Handle("/old", http.RedirectHandler("/article", http.StatusMovedPermanently))
	mux.Handle("/away", http.RedirectHandler("https://elsewhere.example/collect", http.StatusFound))
	mux.Handle("/loop", http.RedirectHandler("/loop", http.StatusFound))
	return mux
}

// TestConformance runs the sdk tool suite over real go-plugin gRPC.
func TestConformance(t *testing.T) {
	sdktest.ToolConformance(t, sdktest.ToolSuite{
		New:      func() sdk.Tool { return &fetcher{} },
		Config:   json.RawMessage(testConfig),
		Upstream: site(t),
		Calls: []sdktest.ToolCase{{
			Name:  toolFetch,
			Input: json.RawMessage(`{"url":"http://api.example.com:8080/data.json"}`),
			Check: func(t *testing.T, r sdk.ToolResult) {
				if got := sdk.TextOf(r.Content); r.IsError || got != `{"temp": 21.5, "unit": "C"}` {
					t.Errorf("result %q (error %v)", got, r.IsError)
				}
			},
		}},
	})
}

// TestFetch calls the plugin over the real plugin boundary, its egress the
// fake one, and checks what the model would read.
func TestFetch(t *testing.T) {
	article, err := os.ReadFile("testdata/article.txt")
	if err != nil {
		t.Fatal(err)
	}
	egress := sdktest.NewFakeEgress(t, site(t))
	tool := sdktest.Serve(t, sdk.KindTool, &fetcher{}, json.RawMessage(testConfig), egress).Tool(t)

	tests := []struct {
		name    string
		input   string
		want    string // the whole text, when set
		check   func(t *testing.T, text string)
		wantErr string // substring of an error result
	}{
		{name: "html page reduced to text", input: `{"url":"https://docs.example.com/article"}`, want: string(article)},
		{name: "fragment ignored", input: `{"url":"https://docs.example.com/article#install"}`, want: string(article)},
		{name: "json passed through", input: `{"url":"http://api.example.com:8080/data.json"}`, want: `{"temp": 21.5, "unit": "C"}`},
		{name: "plain text passed through", input: `{"url":"https://docs.example.com/notes.txt"}`, want: "line one\n  line two\n"},
		{name: "no content", input: `{"url":"https://docs.example.com/empty"}`, want: "(no text content)"},
		{name: "redirect inside the allow list followed", input: `{"url":"https://docs.example.com/old"}`,
			want: "Redirected to: https://docs.example.com/article\n" + string(article)},
		{
			name:  "oversized text truncated at max_bytes with a note",
			input: `{"url":"https://docs.example.com/big.txt"}`,
			check: func(t *testing.T, text string) {
				body, note, ok := strings.Cut(text, "\n\n[truncated:")
				if !ok || body != strings.Repeat("a", defaultMaxBytes) || !strings.Contains(note, "262144 bytes") {
					t.Errorf("got %d bytes of body and note %q; want %d bytes and a truncation note", len(body), note, defaultMaxBytes)
				}
			},
		},
		{
			name:  "oversized html extracted from its beginning",
			input: `{"url":"https://docs.example.com/big.html"}`,
			check: func(t *testing.T, text string) {
				if !strings.HasPrefix(text, "Title: Big\n\npara\n\npara") || !strings.HasSuffix(text, "the text above comes from its first 262144 bytes]") {
					t.Errorf("unexpected shape: %.60q ... %q", text, text[max(0, len(text)-60):])
				}
				if len(text) > defaultMaxBytes+200 {
					t.Errorf("result is %d bytes, over max_bytes", len(text))
				}
			},
		},
		{name: "404 is an error result with an excerpt", input: `{"url":"https://docs.example.com/missing"}`,
			wantErr: "HTTP 404 Not Found from https://docs.example.com/missing\n\n# Not found\n\nNo page here."},
		{name: "500 json error body shown", input: `{"url":"http://api.example.com:8080/broken"}`,
			wantErr: "HTTP 500 Internal Server Error from http://api.example.com:8080/broken\n\n{\"error\":\"database unavailable\"}"},
		{name: "binary refused", input: `{"url":"https://docs.example.com/logo.png"}`, wantErr: "image/png, which this tool cannot show as text"},
		{name: "host outside the allow list refused", input: `{"url":"https://evil.example/x"}`,
			wantErr: "https://evil.example is not in this tool's allow list (https://docs.example.com:443, http://api.example.com:8080)"},
		{name: "allowed host, other scheme refused", input: `{"url":"http://docs.example.com/article"}`, wantErr: "not in this tool's allow list"},
		{name: "redirect out of the allow list refused", input: `{"url":"https://docs.example.com/away"}`,
			wantErr: "redirects to https://elsewhere.example/collect, which is not in this tool's allow list"},
		{name: "redirect loop stopped", input: `{"url":"https://docs.example.com/loop"}`, wantErr: "stopped after 5 redirects"},
		{name: "user info refused", input: `{"url":"https://me:pw@docs.example.com/article"}`, wantErr: "user name or password"},
		{name: "other scheme refused", input: `{"url":"file:///etc/passwd"}`, wantErr: "only http and https"},
		{name: "relative URL refused", input: `{"url":"/article"}`, wantErr: "not an absolute URL"},
		{name: "url missing", input: `{}`, wantErr: "url is required"},
		{name: "misspelt argument", input: `{"uri":"https://docs.example.com/article"}`, wantErr: `unknown field "uri"`},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := tool.Call(context.Background(), sdk.Invocation{CallID: "c" + string(rune('a'+i)), Name: toolFetch, Input: json.RawMessage(tt.input)})
			if err != nil {
				t.Fatalf("Call: %v", err)
			}
			text := sdk.TextOf(res.Content)
			if tt.wantErr != "" {
				if !res.IsError || !strings.Contains(text, tt.wantErr) {
					t.Fatalf("got %q (error %v), want an error result containing %q", text, res.IsError, tt.wantErr)
				}
				return
			}
			if res.IsError {
				t.Fatalf("unexpected error result: %s", text)
			}
			if tt.check != nil {
				tt.check(t, text)
				return
			}
			if diff := cmp.Diff(tt.want, text); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
		})
	}

	// What reached the network: only allowed origins, never a fragment,
	// always our User-Agent and Accept.
	reqs := egress.Requests()
	if len(reqs) == 0 {
		t.Fatal("no request reached the egress")
	}
	for _, r := range reqs {
		u, err := url.Parse(r.URL)
		if err != nil {
			t.Fatal(err)
		}
		if u.Host != "docs.example.com" && u.Host != "api.example.com:8080" {
			t.Errorf("request to %s reached the egress", r.URL)
		}
		if u.Fragment != "" || r.Method != http.MethodGet {
			t.Errorf("sent %s %s", r.Method, r.URL)
		}
		if got := r.Header.Get("User-Agent"); got != defaultUserAgent() {
			t.Errorf("User-Agent %q, want %q", got, defaultUserAgent())
		}
		if got := r.Header.Get("Accept"); got != accept {
			t.Errorf("Accept %q", got)
		}
	}
}
