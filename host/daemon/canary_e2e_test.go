package daemon

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// canary is the key the upstreams reflect; it must come back nowhere.
const canary = "sk-canary-4f8e2d1c7b9a3e5f6d0c"

// reflecting is an OpenAI-compatible upstream that puts every request
// header and the query into its answer (body and Location), streamed or
// not: the worst an upstream can do with the key it was sent.
func reflecting(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var echo strings.Builder
		fmt.Fprintf(&echo, "query=%s ", r.URL.RawQuery)
		for k, vs := range r.Header {
			fmt.Fprintf(&echo, "%s=%s ", k, strings.Join(vs, ","))
		}
		text, _ := json.Marshal(echo.String())
		w.Header().Set("Location", "https://elsewhere.example/?"+r.URL.RawQuery+"&auth="+r.Header.Get("Authorization"))
		w.Header().Set("X-Echo", r.Header.Get("Authorization"))
		if strings.Contains(string(body), `"stream":true`) {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":%s}}]}\n\n", text)
			fmt.Fprint(w, "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"c1","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":%s},"finish_reason":"stop"}]}`, text)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// quoting answers 401 with the key as its error code and in its message.
func quoting(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		key := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"error":{"code":%q,"type":%q,"message":"Incorrect API key provided: %s"}}`, key, key, key)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestCanaryKeyComesBackNowhere: upstreams that echo or quote the key
// reach a client in both wire formats, streamed and not, and the key is in
// no response byte, no trail and no host log line (at trace level).
func TestCanaryKeyComesBackNowhere(t *testing.T) {
	t.Parallel()
	keyFile := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(keyFile, []byte(canary+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	echo, quote := reflecting(t), quoting(t)
	r := newRig(t, `
provider "echo" {
  plugin     = "openai"
  base_url   = "`+echo.URL+`/v1"
  model      = "m"
  credential = file("`+keyFile+`")
}
provider "quote" {
  plugin     = "openai"
  base_url   = "`+quote.URL+`/v1"
  model      = "m"
  credential = file("`+keyFile+`")
}
chain "default" { providers = [provider.echo] }
chain "denied" { providers = [provider.quote] }
`, Options{})
	var seen []string
	for _, chain := range []string{"default", "denied"} {
		for _, stream := range []bool{false, true} {
			oa := r.post("/v1/chat/completions", chatBody(chain, stream))
			an := r.post("/v1/messages", fmt.Sprintf(`{"model":%q,"max_tokens":64,"stream":%v,"messages":[{"role":"user","content":"hi"}]}`, chain, stream))
			for _, resp := range []response{oa, an} {
				var h strings.Builder
				resp.header.Write(&h)
				seen = append(seen, fmt.Sprintf("%s %v → %d\n%s\n%s", chain, stream, resp.status, h.String(), resp.body))
			}
		}
	}
	// The panel: its page, every read route, and a Try through both
	// chains (the quoting upstream's answer streams to the page).
	page := r.get("/")
	m := regexp.MustCompile(`name="axon-csrf" content="([0-9a-f]+)"`).FindStringSubmatch(page.body)
	if m == nil {
		t.Fatalf("the panel page has no CSRF token: %d %s", page.status, page.body)
	}
	seen = append(seen, page.body)
	for _, path := range []string{"/panel/api/roster", "/panel/api/turns", "/panel/api/faces", "/panel/api/config", "/panel/api/stats"} {
		resp := r.get(path)
		seen = append(seen, path+"\n"+resp.body)
	}
	if roster := r.get("/panel/api/roster").body; !strings.Contains(roster, `"credential":"file:`+keyFile+`"`) {
		t.Errorf("the roster does not show the credential's reference: %s", roster)
	}
	for _, chain := range []string{"default", "denied"} {
		resp := r.askBody("/panel/api/try", `{"chain":"`+chain+`","prompt":"hi"}`, "X-Axon-CSRF", m[1])
		if resp.status != http.StatusOK || !strings.Contains(resp.body, "event: ") {
			t.Errorf("try %s: %d %s", chain, resp.status, resp.body)
		}
		seen = append(seen, "try "+chain+"\n"+resp.body)
	}
	if turns := r.get("/panel/api/turns").body; !strings.Contains(turns, `"source":"panel"`) {
		t.Errorf("the panel's turns are not in its live view: %s", turns)
	}
	all := strings.Join(seen, "\n") + r.logs.String()
	if strings.Contains(all, canary) || strings.Contains(all, canary[10:]) {
		t.Fatalf("the key came back:\n%s", all)
	}
	if !strings.Contains(all, "[redacted]") {
		t.Fatalf("nothing was masked: the upstreams echoed nothing and the test proves nothing:\n%s", all)
	}
}
