package daemon

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// mediaPNG is a PNG image with a marker no log line may hold.
var mediaPNG = append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), []byte("MEDIA-BYTES-NEVER-LOGGED-7f3a")...)

// imageServer serves mediaPNG at /cat.png and counts the fetches.
type imageServer struct {
	*httptest.Server
	calls atomic.Int64
}

func newImageServer(t *testing.T, tls bool) *imageServer {
	t.Helper()
	s := &imageServer{}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.calls.Add(1)
		w.Header().Set("Content-Type", "image/png")
		w.Write(mediaPNG)
	})
	if tls {
		s.Server = httptest.NewTLSServer(h)
	} else {
		s.Server = httptest.NewServer(h)
	}
	t.Cleanup(s.Close)
	return s
}

// bodyRecorder is a fake upstream that keeps every request body and
// answers with its step.
type bodyRecorder struct {
	*httptest.Server
	mu     sync.Mutex
	bodies [][]byte
}

func newBodyRecorder(t *testing.T, answer func(n int, w http.ResponseWriter)) *bodyRecorder {
	t.Helper()
	u := &bodyRecorder{}
	u.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		u.mu.Lock()
		u.bodies = append(u.bodies, b)
		n := len(u.bodies)
		u.mu.Unlock()
		answer(n, w)
	}))
	t.Cleanup(u.Close)
	return u
}

func (u *bodyRecorder) received() [][]byte {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([][]byte(nil), u.bodies...)
}

// ollamaAnswer streams the recorded Ollama answer; failFirst answers the
// first that many calls with a 500.
func ollamaAnswer(t *testing.T, failFirst int) func(int, http.ResponseWriter) {
	stream := wireFixture(t, "ollama", "api-chat-stream.txt")
	return func(n int, w http.ResponseWriter) {
		if n <= failFirst {
			http.Error(w, `{"error":"overloaded"}`, http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/x-ndjson")
		w.Write(stream)
	}
}

// ollamaImages is every images[] entry of an /api/chat body.
func ollamaImages(t *testing.T, body []byte) []string {
	t.Helper()
	var req struct {
		Messages []struct {
			Images []string `json:"images"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatalf("ollama request: %v\n%s", err, body)
	}
	var out []string
	for _, m := range req.Messages {
		out = append(out, m.Images...)
	}
	return out
}

func imageChat(model, url string) string {
	return fmt.Sprintf(`{"model":%q,"messages":[{"role":"user","content":[{"type":"text","text":"What is this?"},{"type":"image_url","image_url":{"url":%q}}]}]}`, model, url)
}

// TestImageURLReachesOllamaInline: an OpenAI-format client's image_url,
// on a chain of Ollama providers (real plugin processes), is fetched by
// the host from a test server the media block allows and reaches the
// fake Ollama upstream as inline base64; the first hop's retry and the
// fallback to the second reuse the one fetch; neither form of the bytes
// is in any log line.
func TestImageURLReachesOllamaInline(t *testing.T) {
	t.Parallel()
	img := newImageServer(t, false)
	flaky := newBodyRecorder(t, ollamaAnswer(t, 99))
	good := newBodyRecorder(t, ollamaAnswer(t, 0))
	r := newRigAxon(t, `media { allow = ["`+img.URL+`"] }`, `
provider "flaky" {
  plugin   = "ollama"
  base_url = "`+flaky.URL+`"
  model    = "llava"
}
provider "llama" {
  plugin   = "ollama"
  base_url = "`+good.URL+`"
  model    = "llava"
}
chain "default" {
  providers = [provider.flaky, provider.llama]
  retry {
    attempts = 2
    backoff  = "10ms"
  }
}
`, "", Options{})
	resp := r.post("/v1/chat/completions", imageChat("default", img.URL+"/cat.png"))
	if resp.status != http.StatusOK {
		t.Fatalf("status %d: %s (trail %s)", resp.status, resp.body, resp.header.Get("X-Axon-Trail"))
	}
	if trail := resp.header.Get("X-Axon-Trail"); !strings.Contains(trail, "flaky#2 fallback") || !strings.Contains(trail, "llama#1 ok") {
		t.Errorf("trail %q: want the flaky hop retried, then the second answering", trail)
	}
	want := base64.StdEncoding.EncodeToString(mediaPNG)
	for name, u := range map[string]*bodyRecorder{"flaky": flaky, "llama": good} {
		for i, b := range u.received() {
			if got := ollamaImages(t, b); len(got) != 1 || got[0] != want {
				t.Errorf("%s call %d: images %q, want the fetched bytes inline", name, i+1, got)
			}
		}
	}
	if n := len(flaky.received()); n != 2 {
		t.Errorf("flaky upstream called %d times, want 2", n)
	}
	if n := img.calls.Load(); n != 1 {
		t.Errorf("image fetched %d times for one client request, want 1", n)
	}
	logs := r.logs.String()
	if strings.Contains(logs, want) || strings.Contains(logs, "MEDIA-BYTES-NEVER-LOGGED") {
		t.Error("the fetched image is in the host log")
	}
}

// TestImageURLRefusedFallsBack: without a media allowance, an image URL
// on 127.0.0.1 is refused (at the dialed address: it is https, so no rule
// but the destination check stops it); the Ollama hop fails permanently
// with an error naming the part, and the chain falls back to an
// OpenAI-format provider, which takes the URL as it came. On a chain of
// Ollama alone, the client gets that error in its own format.
func TestImageURLRefusedFallsBack(t *testing.T) {
	t.Parallel()
	img := newImageServer(t, true)
	llama := newBodyRecorder(t, ollamaAnswer(t, 0))
	gpt := newBodyRecorder(t, func(_ int, w http.ResponseWriter) { openaiText("gpt-test", "a", "cat")(w, nil) })
	r := newRig(t, `
provider "llama" {
  plugin   = "ollama"
  base_url = "`+llama.URL+`"
  model    = "llava"
}
provider "gpt" {
  plugin   = "openai"
  base_url = "`+gpt.URL+`/v1"
  model    = "gpt-test"
}
chain "default" { providers = [provider.llama, provider.gpt] }
chain "local" { providers = [provider.llama] }
`, Options{})
	url := img.URL + "/cat.png?sig=SECRET"

	resp := r.post("/v1/chat/completions", imageChat("default", url))
	if resp.status != http.StatusOK || chatText(t, resp.body) != "a cat" {
		t.Fatalf("status %d: %s (trail %s)", resp.status, resp.body, resp.header.Get("X-Axon-Trail"))
	}
	if trail := resp.header.Get("X-Axon-Trail"); !strings.Contains(trail, "llama#1 fallback permanent/media_fetch") {
		t.Errorf("trail %q lacks the refused fetch", trail)
	}
	if n := len(llama.received()); n != 0 {
		t.Errorf("ollama upstream called %d times: the request should have failed before it", n)
	}
	if bodies := gpt.received(); len(bodies) != 1 || !bytes.Contains(bodies[0], []byte(`"url":"`+url+`"`)) {
		t.Errorf("the OpenAI-format upstream did not get the URL as sent: %q", bodies)
	}

	resp = r.post("/v1/chat/completions", imageChat("local", url))
	if resp.status != http.StatusBadGateway {
		t.Fatalf("status %d, want 502: %s", resp.status, resp.body)
	}
	var e struct {
		Error struct {
			Message, Type, Code string
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(resp.body), &e); err != nil || e.Error.Message == "" {
		t.Fatalf("not an OpenAI error body: %v\n%s", err, resp.body)
	}
	for _, want := range []string{
		"messages[0].parts[1]: the image at " + img.URL + "/cat.png?… could not be fetched for a provider that takes only inline data",
		"resolves to 127.0.0.1, a loopback address",
	} {
		if !strings.Contains(e.Error.Message, want) {
			t.Errorf("error message %q lacks %q", e.Error.Message, want)
		}
	}
	if strings.Contains(resp.body, "SECRET") || strings.Contains(r.logs.String(), "sig=SECRET") {
		t.Error("the URL's query reached the error or the log")
	}
	if n := img.calls.Load(); n != 0 {
		t.Errorf("the image server was reached %d times", n)
	}
}
