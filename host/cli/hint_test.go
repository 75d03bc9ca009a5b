package cli

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// closedPort is an address on loopback nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// TestAskHintMatchesTheFailure: the hint after an unanswered chain says
// what to do about that failure, for that provider.
func TestAskHintMatchesTheFailure(t *testing.T) {
	t.Parallel()
	refused := closedPort(t)
	keyFile := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(keyFile, []byte("sk-test-not-real"), 0o600); err != nil {
		t.Fatal(err)
	}
	unauthorized := openaiUpstream(t, 401, `{"error":{"message":"bad key","type":"invalid_request_error","code":"invalid_api_key"}}`)
	for _, c := range []struct {
		name, config string
		want         string
	}{
		{"ollama not running", `
provider "local" {
  preset   = "ollama"
  base_url = "http://` + refused + `"
}
chain "default" { providers = [provider.local] }
`, "is Ollama running at http://" + refused + "? Start it with `ollama serve`, and fetch the model once with `ollama pull qwen2.5:3b`."},
		{"key refused", `
provider "mock" {
  plugin     = "openai"
  base_url   = "` + unauthorized.URL + `/v1"
  model      = "m"
  credential = file("` + keyFile + `")
}
chain "default" { providers = [provider.mock] }
`, `provider "mock" refused the key: check the key in file:` + keyFile},
		{"key unset", `
provider "mock" {
  plugin     = "openai"
  base_url   = "` + unauthorized.URL + `/v1"
  model      = "m"
  credential = env("MOCK_KEY_UNSET")
}
chain "default" { providers = [provider.mock] }
`, `provider "mock"'s key is not set: env:MOCK_KEY_UNSET is empty or missing.`},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			code, _, errOut := run(t, nil, "ask", "--config", writeConfig(t, c.config), "hi")
			if code != 1 {
				t.Fatalf("exit %d, want 1\n%s", code, errOut)
			}
			if !strings.Contains(errOut, "hint: "+c.want) {
				t.Errorf("stderr lacks the hint %q:\n%s", c.want, errOut)
			}
			if strings.Contains(errOut, "sk-test-not-real") {
				t.Errorf("the key reached stderr:\n%s", errOut)
			}
		})
	}
}
