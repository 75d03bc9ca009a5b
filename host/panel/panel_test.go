package panel

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/axonhq/axon/host/api"
)

const loopback = "127.0.0.1:7070"

type req struct {
	method, target, body string
	header               map[string]string
	host                 string
}

// do serves one request on h from the loopback, as the panel's own page
// would send it unless rq says otherwise.
func do(t *testing.T, h http.Handler, rq req) *httptest.ResponseRecorder {
	t.Helper()
	if rq.method == "" {
		rq.method = http.MethodGet
	}
	r := httptest.NewRequest(rq.method, rq.target, strings.NewReader(rq.body))
	r.Host = loopback
	if rq.host != "" {
		r.Host = rq.host
	}
	for k, v := range rq.header {
		r.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// csrfOf reads the CSRF token from the page, as panel.js does.
func csrfOf(t *testing.T, h http.Handler, header map[string]string) string {
	t.Helper()
	w := do(t, h, req{target: "/", header: header})
	m := regexp.MustCompile(`<meta name="axon-csrf" content="([0-9a-f]+)">`).FindStringSubmatch(w.Body.String())
	if m == nil {
		t.Fatalf("no CSRF meta tag in the page (status %d)", w.Code)
	}
	return m[1]
}

// postJSON is a same-origin POST with the page's token.
func postJSON(t *testing.T, h http.Handler, csrf, target, body string) *httptest.ResponseRecorder {
	t.Helper()
	return do(t, h, req{method: http.MethodPost, target: target, body: body, header: map[string]string{
		"Content-Type": "application/json", "X-Axon-CSRF": csrf, "Origin": "http://" + loopback, "Sec-Fetch-Site": "same-origin"}})
}

func decode[T any](t *testing.T, w *httptest.ResponseRecorder) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(w.Body.Bytes(), &v); err != nil {
		t.Fatalf("body %q: %v", w.Body.String(), err)
	}
	return v
}

func errMessage(t *testing.T, w *httptest.ResponseRecorder) string {
	t.Helper()
	return decode[errorBody](t, w).Error.Message
}

func TestReadRoutes(t *testing.T) {
	t.Parallel()
	f := newFake()
	h := New(f, Options{Editor: &fakeEditor{}})
	tests := []struct {
		target, ctype, contains string
	}{
		{"/", "text/html; charset=utf-8", `id="tab-live"`},
		{"/panel/", "text/html; charset=utf-8", `id="tab-knobs"`},
		{"/panel/static/panel.js", "text/javascript; charset=utf-8", "EventSource"},
		{"/panel/static/panel.css", "text/css; charset=utf-8", ".turn"},
		{"/panel/api/roster", "application/json", `"credential":"env:ANTHROPIC_API_KEY"`},
		{"/panel/api/turns", "application/json", `"trail":"ollama#1 ok t=412ms"`},
		{"/panel/api/faces", "application/json", `"display":"eyes"`},
		{"/panel/api/faces/eyes.png", "image/png", "\x89PNG"},
		{"/panel/api/stats?since=14d&by=day", "application/json", `"requests":3`},
		{"/panel/api/config", "application/json", `"editable":true`},
	}
	for _, tt := range tests {
		t.Run(tt.target, func(t *testing.T) {
			w := do(t, h, req{target: tt.target})
			if w.Code != http.StatusOK {
				t.Fatalf("status %d: %s", w.Code, w.Body)
			}
			if got := w.Header().Get("Content-Type"); got != tt.ctype {
				t.Errorf("Content-Type %q, want %q", got, tt.ctype)
			}
			if !strings.Contains(w.Body.String(), tt.contains) {
				t.Errorf("body lacks %q:\n%s", tt.contains, w.Body)
			}
		})
	}
	if got := do(t, h, req{target: "/panel/api/faces/eyes.png"}).Header().Get("Cache-Control"); got != "no-store" {
		t.Errorf("face Cache-Control %q, want no-store", got)
	}
	if diff := cmp.Diff([]string{"14d|day"}, f.statsCalls); diff != "" {
		t.Errorf("stats calls (-want +got):\n%s", diff)
	}
}

func TestJSONShapes(t *testing.T) {
	t.Parallel()
	f := newFake()
	h := New(f, Options{})

	ro := decode[Roster](t, do(t, h, req{target: "/panel/api/roster"}))
	if diff := cmp.Diff(f.roster, ro); diff != "" {
		t.Errorf("roster (-want +got):\n%s", diff)
	}
	turns := decode[struct{ Turns []Turn }](t, do(t, h, req{target: "/panel/api/turns"}))
	if diff := cmp.Diff(f.turns, turns.Turns); diff != "" {
		t.Errorf("turns (-want +got):\n%s", diff)
	}
	faces := decode[struct{ Faces []map[string]any }](t, do(t, h, req{target: "/panel/api/faces"}))
	if len(faces.Faces) != 1 || faces.Faces[0]["expression"] != "idle" || faces.Faces[0]["PNG"] != nil {
		t.Errorf("faces = %v, want eyes idle without its PNG", faces.Faces)
	}
	cfg := decode[configView](t, do(t, h, req{target: "/panel/api/config"}))
	want := configView{Editable: false, Config: "/etc/axon/axon.hcl", Billing: true,
		Reason: "This daemon was started without the configuration editor, so the knobs are read-only.",
		Providers: []providerKnobs{
			{Name: "ollama", Tier: "local", GoodAt: []string{}},
			{Name: "claude", Enabled: ptr(true), Tier: "api", GoodAt: []string{"code"}, BudgetUSD: ptr(20.0), Pricing: Pricing{Input: ptr(3.0), Output: ptr(15.0)}},
		},
		Chains: f.roster.Chains, Tiers: tiers, Strategies: strategies}
	if diff := cmp.Diff(want, cfg); diff != "" {
		t.Errorf("config (-want +got):\n%s", diff)
	}
	// With nothing to show, lists are [] rather than null.
	empty := New(&fakeSource{}, Options{})
	if got := do(t, empty, req{target: "/panel/api/turns"}).Body.String(); got != `{"turns":[]}`+"\n" {
		t.Errorf("no turns: %s", got)
	}
}

func TestConfigReadOnly(t *testing.T) {
	t.Parallel()
	f := newFake()
	f.roster.Editable, f.roster.Config = false, "the built-in default"
	ed := &fakeEditor{}
	h := New(f, Options{Editor: ed})
	cfg := decode[configView](t, do(t, h, req{target: "/panel/api/config"}))
	if cfg.Editable || !strings.Contains(cfg.Reason, "the built-in default") {
		t.Errorf("config editable=%v reason %q, want read-only naming the built-in default", cfg.Editable, cfg.Reason)
	}
	w := postJSON(t, h, csrfOf(t, h, nil), "/panel/api/config", `{"edits":[{"block":"billing","field":"enabled","value":false}]}`)
	if w.Code != http.StatusConflict {
		t.Errorf("status %d, want 409", w.Code)
	}
	if _, reloads := f.effects(); ed.callCount() != 0 || reloads != 0 {
		t.Errorf("a read-only config was edited (%d) or reloaded (%d)", ed.callCount(), reloads)
	}
}

func TestConfigSave(t *testing.T) {
	t.Parallel()
	f := newFake()
	ed := &fakeEditor{outcome: EditOutcome{Backup: "/etc/axon/axon.hcl.bak"}}
	h := New(f, Options{Editor: ed})
	body := `{"edits":[
		{"block":"provider","name":"claude","field":"budget","value":25},
		{"block":"provider","name":"ollama","field":"tier","value":null},
		{"block":"chain","name":"default","field":"providers","value":["ollama","claude"]},
		{"block":"billing","field":"enabled","value":false}]}`
	w := postJSON(t, h, csrfOf(t, h, nil), "/panel/api/config", body)
	if w.Code != http.StatusOK {
		t.Fatalf("status %d: %s", w.Code, w.Body)
	}
	got := decode[struct {
		Reload ReloadResult
		Backup string
		Path   string
	}](t, w)
	want := ReloadResult{Started: []string{"provider.claude"}, Kept: []string{"provider.ollama"}}
	if diff := cmp.Diff(want, got.Reload); diff != "" || got.Backup != "/etc/axon/axon.hcl.bak" || got.Path != f.path {
		t.Errorf("answer %+v, reload diff:\n%s", got, diff)
	}
	if len(ed.calls) != 1 {
		t.Fatalf("editor calls %d, want 1", len(ed.calls))
	}
	c := ed.calls[0]
	wantEdits := []EditRequest{
		{Block: "provider", Name: "claude", Field: "budget", Value: json.RawMessage(`25`)},
		{Block: "provider", Name: "ollama", Field: "tier", Value: json.RawMessage(`null`)},
		{Block: "chain", Name: "default", Field: "providers", Value: json.RawMessage(`["ollama","claude"]`)},
		{Block: "billing", Field: "enabled", Value: json.RawMessage(`false`)},
	}
	if diff := cmp.Diff(editCall{f.path, string(f.src), wantEdits}, c); diff != "" {
		t.Errorf("editor call (-want +got):\n%s", diff)
	}
	if _, reloads := f.effects(); reloads != 1 {
		t.Errorf("reloads %d, want 1", reloads)
	}
}

func TestConfigDiagnostics(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body string
		editor     EditOutcome
		wantKnob   string
		wantEdit   bool // the editor was asked
	}{
		{name: "editor refuses", body: `{"edits":[{"block":"chain","name":"default","field":"strategy","value":"rotate"}]}`,
			editor:   EditOutcome{Diagnostics: []Diagnostic{{Block: "chain", Name: "default", Field: "strategy", Summary: "rotate needs two unpaid providers"}}},
			wantKnob: "chain.default.strategy", wantEdit: true},
		{name: "wrong type", body: `{"edits":[{"block":"provider","name":"claude","field":"enabled","value":"on"}]}`,
			wantKnob: "provider.claude.enabled"},
		{name: "negative price", body: `{"edits":[{"block":"provider","name":"claude","field":"pricing.input","value":-1}]}`,
			wantKnob: "provider.claude.pricing.input"},
		{name: "unknown provider in order", body: `{"edits":[{"block":"chain","name":"default","field":"providers","value":["ollama","gpt"]}]}`,
			wantKnob: "chain.default.providers"},
		{name: "unknown tier", body: `{"edits":[{"block":"provider","name":"ollama","field":"tier","value":"free"}]}`,
			wantKnob: "provider.ollama.tier"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFake()
			ed := &fakeEditor{outcome: tt.editor}
			h := New(f, Options{Editor: ed})
			w := postJSON(t, h, csrfOf(t, h, nil), "/panel/api/config", tt.body)
			if w.Code != http.StatusUnprocessableEntity {
				t.Fatalf("status %d, want 422: %s", w.Code, w.Body)
			}
			got := decode[struct {
				Error       struct{ Message string }
				Diagnostics []struct{ Knob, Summary string }
			}](t, w)
			if len(got.Diagnostics) != 1 || got.Diagnostics[0].Knob != tt.wantKnob || got.Diagnostics[0].Summary == "" || got.Error.Message == "" {
				t.Errorf("answer %+v, want one diagnostic for %s", got, tt.wantKnob)
			}
			if (ed.callCount() == 1) != tt.wantEdit {
				t.Errorf("editor calls %d, want asked=%v", ed.callCount(), tt.wantEdit)
			}
			if _, reloads := f.effects(); reloads != 0 {
				t.Errorf("reloaded %d times after refused edits", reloads)
			}
		})
	}
}

func TestBadInput(t *testing.T) {
	t.Parallel()
	f := newFake()
	f.stats = func(since, by string) (any, error) {
		if since == "yesterday" {
			return nil, fmt.Errorf("%w: since %q", api.ErrStatsQuery, since)
		}
		return nil, errBoom
	}
	ed := &fakeEditor{}
	h := New(f, Options{Editor: ed})
	csrf := csrfOf(t, h, nil)
	big := `{"chain":"default","prompt":"` + strings.Repeat("x", maxBody) + `"}`
	tests := []struct {
		name   string
		w      *httptest.ResponseRecorder
		status int
	}{
		{"try not JSON", postJSON(t, h, csrf, "/panel/api/try", `{"chain":`), 400},
		{"try unknown field", postJSON(t, h, csrf, "/panel/api/try", `{"chain":"default","prompt":"hi","x":1}`), 400},
		{"try unknown chain", postJSON(t, h, csrf, "/panel/api/try", `{"chain":"nope","prompt":"hi"}`), 400},
		{"try unknown pin", postJSON(t, h, csrf, "/panel/api/try", `{"chain":"default/gpt","prompt":"hi"}`), 400},
		{"try empty prompt", postJSON(t, h, csrf, "/panel/api/try", `{"chain":"default","prompt":" "}`), 400},
		{"try too large", postJSON(t, h, csrf, "/panel/api/try", big), 413},
		{"try as a form", do(t, h, req{method: "POST", target: "/panel/api/try", body: "chain=default", header: map[string]string{"X-Axon-CSRF": csrf, "Content-Type": "application/x-www-form-urlencoded"}}), 415},
		{"try by GET", do(t, h, req{target: "/panel/api/try"}), 405},
		{"config no edits", postJSON(t, h, csrf, "/panel/api/config", `{"edits":[]}`), 400},
		{"config unknown block", postJSON(t, h, csrf, "/panel/api/config", `{"edits":[{"block":"axon","field":"listen","value":"0.0.0.0:80"}]}`), 400},
		{"config unknown field", postJSON(t, h, csrf, "/panel/api/config", `{"edits":[{"block":"provider","name":"claude","field":"credential","value":"x"}]}`), 400},
		{"config unknown provider", postJSON(t, h, csrf, "/panel/api/config", `{"edits":[{"block":"provider","name":"gpt","field":"tier","value":"api"}]}`), 400},
		{"stats bad by", do(t, h, req{target: "/panel/api/stats?by=model"}), 400},
		{"stats bad since", do(t, h, req{target: "/panel/api/stats?since=yesterday"}), 400},
		{"stats store down", do(t, h, req{target: "/panel/api/stats"}), 503},
		{"no such face", do(t, h, req{target: "/panel/api/faces/mouth.png"}), 404},
		{"face without png suffix", do(t, h, req{target: "/panel/api/faces/eyes"}), 404},
		{"no such api", do(t, h, req{target: "/panel/api/secrets"}), 404},
		{"dot segments", do(t, h, req{target: "/panel/static/../api/roster"}), 404},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.w.Code != tt.status {
				t.Errorf("status %d, want %d: %s", tt.w.Code, tt.status, tt.w.Body)
			}
			if ct := tt.w.Header().Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q, want a JSON error", ct)
			} else if errMessage(t, tt.w) == "" {
				t.Errorf("JSON error without a message: %s", tt.w.Body)
			}
		})
	}
	if tries, _ := f.effects(); len(tries) != 0 || ed.callCount() != 0 {
		t.Errorf("bad input had effects: tries %v, edits %d", tries, ed.callCount())
	}
}

// sseEvent is one server-sent event.
type sseEvent struct{ Name, Data string }

// readEvents reads events (skipping comments) until n are read or the
// stream ends.
func readEvents(t *testing.T, r *bufio.Reader, n int) []sseEvent {
	t.Helper()
	var out []sseEvent
	var ev sseEvent
	for len(out) < n {
		line, err := r.ReadString('\n')
		if err != nil {
			if err != io.EOF {
				t.Fatalf("read events: %v", err)
			}
			return out
		}
		line = strings.TrimSuffix(line, "\n")
		switch {
		case line == "":
			if ev.Name != "" || ev.Data != "" {
				out = append(out, ev)
			}
			ev = sseEvent{}
		case strings.HasPrefix(line, "event: "):
			ev.Name = line[len("event: "):]
		case strings.HasPrefix(line, "data: "):
			ev.Data += line[len("data: "):]
		}
	}
	return out
}

func TestEvents(t *testing.T) {
	t.Parallel()
	f := newFake()
	srv := httptest.NewServer(New(f, Options{}))
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/panel/api/events", nil)
	resp, err := srv.Client().Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q", ct)
	}
	ch := <-f.watching
	turn := Turn{ID: 7, Chain: "default", Source: "panel", Provider: "claude", Outcome: "exhausted", Trail: "claude#1 fallback auth/401 t=90ms"}
	face := Face{Display: "eyes", Expression: "degraded", Width: 128, Height: 64, PNG: []byte("png")}
	ch <- Update{Turn: &turn}
	ch <- Update{Face: &face, Lost: 2}
	got := readEvents(t, bufio.NewReader(resp.Body), 3)
	want := []sseEvent{
		{"turn", mustMarshal(t, turn)},
		{"lost", `{"lost":2}`},
		{"face", `{"display":"eyes","expression":"degraded","width":128,"height":64,"updated":"0001-01-01T00:00:00Z"}`},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	close(ch) // the daemon ends the watch: the stream ends
	if rest := readEvents(t, bufio.NewReader(resp.Body), 1); len(rest) != 0 {
		t.Errorf("events after the watch closed: %v", rest)
	}
}

func TestEventsKeepalive(t *testing.T) {
	t.Parallel()
	f := newFake()
	srv := httptest.NewServer(New(f, Options{Keepalive: 1})) // as often as the ticker can
	defer srv.Close()
	resp, err := srv.Client().Get(srv.URL + "/panel/api/events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("no keepalive: %v", err)
		}
		if line == ": keepalive\n" {
			return
		}
	}
}

func mustMarshal(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestTry(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		err  error
		want []sseEvent
	}{
		{"answers", nil, []sseEvent{{"delta", `{"text":"Hel"}`}, {"delta", `{"text":"lo"}`},
			{"done", `{"provider":"ollama","model":"qwen2.5:7b","trail":"ollama#1 ok t=10ms"}`}}},
		{"fails", errBoom, []sseEvent{{"delta", `{"text":"Hel"}`}, {"delta", `{"text":"lo"}`},
			{"error", `{"message":"boom","provider":"ollama","model":"qwen2.5:7b","trail":"ollama#1 ok t=10ms"}`}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFake()
			f.tryErr = tt.err
			h := New(f, Options{})
			w := postJSON(t, h, csrfOf(t, h, nil), "/panel/api/try", `{"chain":"default/ollama","prompt":"hi there"}`)
			if w.Code != http.StatusOK || w.Header().Get("Content-Type") != "text/event-stream" {
				t.Fatalf("status %d %q: %s", w.Code, w.Header().Get("Content-Type"), w.Body)
			}
			got := readEvents(t, bufio.NewReader(w.Body), 10)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
			if tries, _ := f.effects(); !cmp.Equal(tries, []string{"default/ollama|hi there"}) {
				t.Errorf("tries %v", tries)
			}
		})
	}
}

type httptestResponse = httptest.ResponseRecorder

func regexpCSRF(t *testing.T, page string) string {
	t.Helper()
	m := regexp.MustCompile(`name="csrf" value="([0-9a-f]+)"`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no csrf field in the login page")
	}
	return m[1]
}
