package supervisor

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/axonhq/axon/hcl/credref"
	"github.com/axonhq/axon/host/egress"
	"github.com/axonhq/axon/host/internal/logbuf"
	"github.com/axonhq/axon/sdk"
)

// TestProxyFromTheJail: a sandboxed plugin whose block enables the proxy
// reaches an allowed HTTPS host through the loopback proxy the host
// offers, TLS end to end and no credential added (the block has one and
// the upstream sees none); a host off the allow list is refused by the
// host; a direct connection from the jail reaches nothing; and a plugin
// whose block has no proxy is offered none. The key is in no answer and
// no log line.
func TestProxyFromTheJail(t *testing.T) {
	t.Parallel()
	var sawAuth atomic.Value
	sawAuth.Store("")
	up := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sawAuth.Store(r.Header.Get("Authorization") + r.Header.Get("X-Api-Key"))
		w.Write([]byte("upstream over " + r.Proto))
	}))
	defer up.Close()
	other := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("other")) }))
	defer other.Close()

	const key = "sk-proxy-canary-51d0"
	keyFile := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(keyFile, []byte(key), 0o600); err != nil {
		t.Fatal(err)
	}
	al, err := egress.NewAllowList(up.URL)
	if err != nil {
		t.Fatal(err)
	}
	logs := &logbuf.Buffer{}
	s := newSupervisor(t, logs, Options{})
	withKey := func(proxy bool) *egress.Grant {
		return &egress.Grant{Allow: al, Inject: al, Auth: sdk.Auth{Scheme: sdk.AuthBearer}, AuthSet: true,
			Credential: credref.MustParse("file:" + keyFile), Proxy: proxy}
	}
	if err := s.Add(Spec{Name: "px", Kind: sdk.KindProvider, Path: bin("hostile"), Egress: withKey(true)}); err != nil {
		t.Fatal(err)
	}
	if err := s.Add(Spec{Name: "nopx", Kind: sdk.KindProvider, Path: bin("hostile"), Egress: withKey(false)}); err != nil {
		t.Fatal(err)
	}
	px, _ := s.Instance("px")
	nopx, _ := s.Instance("nopx")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a hang guard
	defer cancel()
	say := func(in *Instance, cmd string) string {
		t.Helper()
		_, text, err := collect(ctx, in, cmd)
		if err != nil {
			t.Fatalf("%s: %v", cmd, err)
		}
		if strings.Contains(text, key) {
			t.Errorf("%s: the answer holds the key: %s", cmd, text)
		}
		return text
	}

	if out := say(px, "proxy-get "+up.URL+"/x"); out != "proxy-get 200 upstream over HTTP/1.1" {
		t.Errorf("through the proxy: %q", out)
	}
	if got := sawAuth.Load().(string); got != "" {
		t.Errorf("the tunnel added a credential: the upstream saw %q", got)
	}
	if out := say(px, "proxy-get "+other.URL+"/"); !strings.Contains(out, "Forbidden") {
		t.Errorf("a host off the allow list: %q", out)
	}
	if out := say(px, "dial "+strings.TrimPrefix(up.URL, "https://")); !strings.HasPrefix(out, "dial error: ") {
		t.Errorf("a direct connection from the jail: %q", out)
	}
	if out := say(nopx, "proxy-get "+up.URL+"/x"); out != "proxy-get: no proxy offered" {
		t.Errorf("a block without the proxy: %q", out)
	}
	if !strings.Contains(logs.String(), "CONNECT") {
		t.Errorf("the tunnel was not logged:\n%s", logs)
	}
	if strings.Contains(logs.String(), key) {
		t.Error("the key is in the host's log")
	}
}
