package daemon

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/axonhq/axon/hcl/config"
	"github.com/axonhq/axon/host/internal/logbuf"
)

// rig is a whole axon: config, broker with real plugin subprocesses, and
// its FrontDoor (sessions and metrics included) on an httptest server.
type rig struct {
	t      testing.TB
	broker *Daemon
	front  *FrontDoor
	door   *httptest.Server
	logs   *logbuf.Buffer
}

// newRig loads hclText (after an axon block with a fresh state dir and the
// test plugins) and starts everything; it is all torn down when the test
// ends.
func newRig(t testing.TB, hclText string, opts Options) *rig {
	t.Helper()
	return newRigWithToken(t, hclText, "", opts)
}

// newRigWithToken is newRig with a front door that requires token.
func newRigWithToken(t testing.TB, hclText, token string, opts Options) *rig {
	t.Helper()
	return newRigAxon(t, "", hclText, token, opts)
}

// newRigAxon is newRigWithToken with axonBody added to the axon block
// (billing { enabled = true }).
func newRigAxon(t testing.TB, axonBody, hclText, token string, opts Options) *rig {
	t.Helper()
	return newRigIn(t, t.TempDir(), axonBody, hclText, token, opts)
}

// newRigIn is newRigAxon with the state directory stateDir: a second rig
// on the same directory is axon restarted.
func newRigIn(t testing.TB, stateDir, axonBody, hclText, token string, opts Options) *rig {
	t.Helper()
	if axonBody != "" {
		axonBody = "  " + axonBody + "\n" // lines below the axon block move only when there is one
	}
	text := fmt.Sprintf("axon {\n  state_dir = %q\n  plugin_dir = %q\n%s}\n", stateDir, binDir, axonBody) + hclText
	loader := config.NewLoader(config.Options{HomeDir: t.TempDir(), ExecutableDir: binDir})
	cfg, diags := loader.Parse("e2e.hcl", []byte(text))
	if diags.HasErrors() {
		var b strings.Builder
		config.WriteDiagnostics(&b, loader.Files(), diags)
		t.Fatalf("config:\n%s", b.String())
	}
	logs := &logbuf.Buffer{}
	logger := hclog.New(&hclog.LoggerOptions{Name: "axon", Output: logs, Level: hclog.Trace}) // every level: a secret must be in none
	front, err := NewFrontDoor(context.Background(), cfg, nil, logger, token, opts)
	if err != nil {
		t.Fatal(err)
	}
	door := httptest.NewServer(front.Handler())
	r := &rig{t: t, broker: front.daemon, front: front, door: door, logs: logs}
	t.Cleanup(func() {
		door.Close()
		front.Close()
		if t.Failed() {
			t.Logf("host log:\n%s", logs)
		}
	})
	return r
}

// response is what a client saw.
type response struct {
	status int
	header http.Header
	body   string
}

func (r *rig) post(path, body string) response {
	r.t.Helper()
	resp, err := http.Post(r.door.URL+path, "application/json", strings.NewReader(body))
	if err != nil {
		r.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return response{status: resp.StatusCode, header: resp.Header, body: string(b)}
}

func chatBody(model string, stream bool) string {
	return fmt.Sprintf(`{"model":%q,"stream":%v,"messages":[{"role":"user","content":"Say hello."}]}`, model, stream)
}

// chatText is the assistant text of a non-streaming chat completion.
func chatText(t *testing.T, body string) string {
	t.Helper()
	var c struct {
		Model   string `json:"model"`
		Choices []struct {
			Message struct {
				Content string `json:"content"`
			} `json:"message"`
		} `json:"choices"`
	}
	if err := json.Unmarshal([]byte(body), &c); err != nil || len(c.Choices) == 0 {
		t.Fatalf("not a chat completion: %v\n%s", err, body)
	}
	return c.Choices[0].Message.Content
}

// sseData returns the data payloads of an SSE body.
func sseData(body string) []string {
	var out []string
	sc := bufio.NewScanner(strings.NewReader(body))
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			out = append(out, d)
		}
	}
	return out
}
