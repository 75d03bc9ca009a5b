package daemon

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// frontDoorHCL is a chain whose provider is never reached: nothing below
// gets as far as a model call.
const frontDoorHCL = `
provider "p" {
  plugin   = "openai"
  base_url = "http://127.0.0.1:9/v1"
  model    = "m"
}
chain "default" { providers = [provider.p] }
`

const frontDoorToken = "s3cret"

// do sends one request to the rig's front door, with the token when withToken.
func (r *rig) do(method, path, body string, withToken bool) (int, http.Header, string) {
	r.t.Helper()
	req, err := http.NewRequest(method, r.door.URL+path, strings.NewReader(body))
	if err != nil {
		r.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if withToken {
		req.Header.Set("Authorization", "Bearer "+frontDoorToken)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		r.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// TestFrontDoorToken: the token is checked once, in front of every route
// but /healthz, the sessions API's included; each refuses a request without
// it with 401 in the error format the route speaks (OpenAI's, Anthropic's
// under /v1/messages, the sessions API's own under /v1/sessions).
func TestFrontDoorToken(t *testing.T) {
	t.Parallel()
	r := newRigWithToken(t, frontDoorHCL, frontDoorToken, Options{})
	const msg = `missing or wrong axon token: send it as \"Authorization: Bearer <token>\" or \"x-api-key: <token>\"`
	openai := `{"error":{"message":"` + msg + `","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`
	anthropic := `{"type":"error","error":{"type":"authentication_error","message":"` + msg + `"}}`
	sessions := `{"error":{"type":"invalid_api_key","message":"` + msg + `"}}`
	for _, c := range []struct{ method, path, body, want string }{
		{"POST", "/v1/chat/completions", chatBody("default", false), openai},
		{"POST", "/v1/messages", `{"model":"default","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`, anthropic},
		{"GET", "/v1/models", "", openai},
		{"GET", "/v1/models/default", "", openai},
		{"GET", "/metrics", "", openai},
		{"GET", "/v1/nothing", "", openai},
		{"GET", "/v1/sessions", "", sessions},
		{"POST", "/v1/sessions", `{"session":"s","prompt":"hi"}`, sessions},
		{"GET", "/v1/sessions/aaaaaaaaaaaaaaaaaaaaaaaaaa/events", "", sessions},
		{"POST", "/v1/sessions/aaaaaaaaaaaaaaaaaaaaaaaaaa/cancel", "", sessions},
	} {
		status, header, body := r.do(c.method, c.path, c.body, false)
		if status != http.StatusUnauthorized || header.Get("WWW-Authenticate") != `Bearer realm="axon"` {
			t.Errorf("%s %s without the token: status %d, WWW-Authenticate %q: %s", c.method, c.path, status, header.Get("WWW-Authenticate"), body)
			continue
		}
		sameJSON(t, c.method+" "+c.path, body, c.want)
	}
	if status, _, body := r.do("GET", "/healthz", "", false); status != http.StatusOK {
		t.Errorf("/healthz without the token: %d %s", status, body)
	}
	if status, _, body := r.do("GET", "/v1/sessions", "", true); status != http.StatusOK {
		t.Errorf("/v1/sessions with the token: %d %s", status, body)
	}
}

// TestSessionsInMetrics: a request to the sessions API is counted in the
// metrics the daemon serves at /metrics, under its own route, like every
// other route of the front door.
func TestSessionsInMetrics(t *testing.T) {
	t.Parallel()
	r := newRigWithToken(t, frontDoorHCL, frontDoorToken, Options{})
	for _, c := range []struct{ method, path string }{{"GET", "/v1/sessions"}, {"GET", "/v1/sessions"}, {"GET", "/v1/sessions/aaaaaaaaaaaaaaaaaaaaaaaaaa/runs"}} {
		r.do(c.method, c.path, "", true)
	}
	r.do("GET", "/v1/sessions", "", false)
	_, _, metrics := r.do("GET", "/metrics", "", true)
	for _, want := range []string{
		`axon_requests_total{route="GET /v1/sessions",status="200"} 2`,
		`axon_requests_total{route="GET /v1/sessions/{id}/runs",status="404"} 1`,
		`axon_requests_total{route="",status="401"} 1`,
		`axon_request_duration_seconds_count{route="GET /v1/sessions",stream="false"} 2`,
	} {
		if !strings.Contains(metrics, want+"\n") {
			t.Errorf("/metrics lacks %s:\n%s", want, grepLines(metrics, "axon_request"))
		}
	}
}

// sameJSON fails unless got and want hold the same JSON value.
func sameJSON(t *testing.T, what, got, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		t.Errorf("%s: not JSON: %v\n%s", what, err, got)
		return
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("%s: the wanted body is not JSON: %v", what, err)
	}
	if diff := cmp.Diff(w, g); diff != "" {
		t.Errorf("%s: body (-want +got):\n%s", what, diff)
	}
}

// grepLines is the lines of s that contain sub.
func grepLines(s, sub string) string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		if strings.Contains(line, sub) {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}
