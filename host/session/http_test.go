package session

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/axonhq/axon/sdk"
)

type client struct {
	t   *testing.T
	url string
}

func (c client) do(method, path, body string, header ...string) (int, http.Header, string) {
	c.t.Helper()
	req, err := http.NewRequest(method, c.url+path, strings.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

func httpRig(t *testing.T) (*rig, client) {
	notes := newTool(sdk.SideEffectUnsafe, "append_note")
	r := newRig(t, toolSteps("done", []sdk.ToolCall{call("a", "append_note", `{}`), call("b", "append_note", `{}`)}), map[string]Tool{"notes": notes})
	srv := httptest.NewServer(r.m.Handler())
	t.Cleanup(srv.Close)
	return r, client{t: t, url: srv.URL}
}

func TestHTTPSendAndRead(t *testing.T) {
	t.Parallel()
	r, c := httpRig(t)
	body := `{"project_root":"/tmp/project","harness":"test","session":"s1","prompt":"note this","tools":["notes"],"idempotency_key":"k1","max_turns":4}`

	// The token is the front door's to check, once for every route:
	// host/daemon's TestFrontDoorToken.
	status, hdr, out := c.do("POST", "/v1/sessions", body)
	if status != http.StatusCreated {
		t.Fatalf("create: %d %s", status, out)
	}
	var adm Admitted
	if err := json.Unmarshal([]byte(out), &adm); err != nil {
		t.Fatal(err)
	}
	if adm.SessionID != testKey.ID() || adm.Existing || hdr.Get("Location") != "/v1/sessions/"+adm.SessionID+"/runs/"+adm.RunID {
		t.Errorf("create answered %+v, Location %q", adm, hdr.Get("Location"))
	}
	r.wait(adm)
	if status, _, out := c.do("POST", "/v1/sessions", body); status != http.StatusOK || !strings.Contains(out, `"existing":true`) || !strings.Contains(out, adm.RunID) {
		t.Errorf("resend: %d %s, want 200 with the existing run", status, out)
	}

	for _, e := range []struct {
		name, method, path, body string
		status                   int
		typ                      string
	}{
		{"max_turns zero", "POST", "/v1/sessions", `{"session":"x","prompt":"p","max_turns":0}`, 400, "invalid_request"},
		{"unknown field", "POST", "/v1/sessions", `{"session":"x","prompt":"p","max_turn":3}`, 400, "invalid_request"},
		{"not JSON", "POST", "/v1/sessions", `{`, 400, "invalid_request"},
		{"same key, other prompt", "POST", "/v1/sessions", strings.Replace(body, "note this", "other", 1), 409, "idempotency_key_reused"},
		{"unknown session", "GET", "/v1/sessions/aaaaaaaaaaaaaaaaaaaaaaaaaa/runs", "", 404, "not_found"},
		{"bad session id", "GET", "/v1/sessions/..%2f..%2fetc/runs", "", 404, "not_found"},
		{"unknown run", "GET", "/v1/sessions/" + adm.SessionID + "/runs/nope", "", 404, "not_found"},
		{"cancel without open run", "POST", "/v1/sessions/" + adm.SessionID + "/cancel", "", 409, "no_open_run"},
		{"bad cursor", "GET", "/v1/sessions/" + adm.SessionID + "/transcript?after=x", "", 400, "invalid_request"},
		{"bad limit", "GET", "/v1/sessions/" + adm.SessionID + "/transcript?limit=0", "", 400, "invalid_request"},
	} {
		status, _, out := c.do(e.method, e.path, e.body)
		if status != e.status || !strings.Contains(out, `"type":"`+e.typ+`"`) {
			t.Errorf("%s: %d %s, want %d %s", e.name, status, out, e.status, e.typ)
		}
	}

	status, _, out = c.do("GET", "/v1/sessions/"+adm.SessionID+"/runs/"+adm.RunID, "")
	var run RunInfo
	if err := json.Unmarshal([]byte(out), &run); status != 200 || err != nil || run.Status != StatusFinished || run.Reason != EndCompleted || run.Steps != 2 {
		t.Errorf("run: %d %s", status, out)
	}
	if status, _, out := c.do("GET", "/v1/sessions", ""); status != 200 || !strings.Contains(out, adm.RunID) {
		t.Errorf("list: %d %s", status, out)
	}
	if status, _, out := c.do("GET", "/v1/sessions/"+adm.SessionID+"/usage", ""); status != 200 || strings.Count(out, `"input_tokens":10`) != 2 {
		t.Errorf("usage: %d %s", status, out)
	}

	// Paging through the transcript gives the whole of it, once.
	var paged []Event
	for after := "0"; ; {
		_, _, out := c.do("GET", "/v1/sessions/"+adm.SessionID+"/transcript?limit=4&after="+after, "")
		var p Page
		if err := json.Unmarshal([]byte(out), &p); err != nil {
			t.Fatal(err)
		}
		paged = append(paged, p.Events...)
		if !p.More {
			break
		}
		after = p.Next.String()
	}
	if diff := cmp.Diff(r.transcript(adm.SessionID), paged, cmp.Comparer(sameEvent)); diff != "" {
		t.Errorf("paged transcript (-want +got):\n%s", diff)
	}
}

// sameEvent compares events as JSON (times come back in another zone form).
func sameEvent(a, b Event) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

type sseFrame struct{ id, event, data string }

func parseSSE(body string) []sseFrame {
	var out []sseFrame
	for _, block := range strings.Split(body, "\n\n") {
		var f sseFrame
		for _, line := range strings.Split(block, "\n") {
			switch k, v, _ := strings.Cut(line, ": "); k {
			case "id":
				f.id = v
			case "event":
				f.event = v
			case "data":
				f.data = v
			}
		}
		if f.event != "" {
			out = append(out, f)
		}
	}
	return out
}

// An EventSource that reconnects sends Last-Event-ID; the stream resumes
// right after that event, whatever the URL's after says.
func TestHTTPEventsResumeFromLastEventID(t *testing.T) {
	t.Parallel()
	r, c := httpRig(t)
	adm := r.send(Params{Prompt: "p", Tools: []string{"notes"}})
	r.wait(adm)
	path := "/v1/sessions/" + adm.SessionID + "/events?display=false&after=0&run=" + adm.RunID
	status, hdr, out := c.do("GET", path, "")
	if status != 200 || hdr.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("events: %d %s", status, hdr.Get("Content-Type"))
	}
	all := parseSSE(out)
	if len(all) < 3 || all[len(all)-1].event != "end" {
		t.Fatalf("stream %q, want events ending with end", out)
	}
	all = all[:len(all)-1]
	for k := 1; k < len(all); k++ {
		_, _, out := c.do("GET", path, "", "Last-Event-ID", all[k-1].id)
		rest := parseSSE(out)
		if diff := cmp.Diff(all[k:], rest[:len(rest)-1], cmp.AllowUnexported(sseFrame{})); diff != "" {
			t.Fatalf("resumed after %s (-want +got):\n%s", all[k-1].id, diff)
		}
	}
}
