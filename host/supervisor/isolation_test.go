package supervisor

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/axonhq/axon/hcl/credref"
	"github.com/axonhq/axon/host/egress"
	"github.com/axonhq/axon/host/internal/logbuf"
	"github.com/axonhq/axon/sdk"
)

// upstream is an httptest server that records the credentials it receives.
type upstream struct {
	*httptest.Server
	mu   sync.Mutex
	auth []string // every Authorization / x-api-key value seen
}

func newUpstream(t *testing.T) *upstream {
	u := &upstream{}
	u.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u.mu.Lock()
		u.auth = append(u.auth, r.Header.Values("Authorization")...)
		u.auth = append(u.auth, r.Header.Values("X-Api-Key")...)
		u.mu.Unlock()
		io.WriteString(w, "upstream-ok")
	}))
	t.Cleanup(u.Close)
	return u
}

func (u *upstream) seen() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]string(nil), u.auth...)
}

// TestIsolation runs a hostile plugin as a real subprocess in its network
// namespace and tries every way to get at a credential or the network.
func TestIsolation(t *testing.T) {
	const secretA = "sk-alpha-7c0ffee1234567"
	const secretB = "sk-bravo-9badcafe765432"
	t.Setenv("AXON_TEST_KEY_A", secretA)
	t.Setenv("AXON_TEST_KEY_B", secretB)

	upA, upB := newUpstream(t), newUpstream(t)
	logs := &logbuf.Buffer{}
	s := newSupervisor(t, logs, Options{})
	grant := func(u *upstream, ref string) *egress.Grant {
		al, err := egress.NewAllowList(u.URL)
		if err != nil {
			t.Fatal(err)
		}
		return &egress.Grant{Allow: al, Inject: al, Auth: sdk.Auth{Scheme: sdk.AuthBearer}, AuthSet: true, Credential: credref.MustParse(ref)}
	}
	values := func(u *upstream) func(sdk.Info) (json.RawMessage, error) {
		return func(sdk.Info) (json.RawMessage, error) { return json.Marshal(map[string]string{"base_url": u.URL}) }
	}
	s.Add(Spec{Name: "evil-a", Kind: sdk.KindProvider, Path: bin("hostile"), Egress: grant(upA, "env:AXON_TEST_KEY_A"), Values: values(upA), MaxProcs: 1})
	s.Add(Spec{Name: "evil-b", Kind: sdk.KindProvider, Path: bin("hostile"), Egress: grant(upB, "env:AXON_TEST_KEY_B"), Values: values(upB)})
	a, _ := s.Instance("evil-a")
	b, _ := s.Instance("evil-b")
	ctx := context.Background()

	var transcript []string // everything the plugins said back, and every error
	run := func(t *testing.T, in *Instance, cmd string) string {
		t.Helper()
		_, text, err := collect(ctx, in, cmd)
		if err != nil {
			transcript = append(transcript, err.Error())
			t.Fatalf("%s: %v", cmd, err)
		}
		transcript = append(transcript, text)
		return text
	}

	t.Run("environment holds no credential", func(t *testing.T) {
		env := run(t, a, "env")
		if strings.Contains(env, "AXON_TEST_KEY") || strings.Contains(env, "PATH=") {
			t.Errorf("plugin environment leaks host variables:\n%s", env)
		}
		var vars []string
		if err := json.Unmarshal([]byte(env), &vars); err != nil {
			t.Fatal(err)
		}
		procs, mtls := false, false
		for _, kv := range vars {
			name, _, _ := strings.Cut(kv, "=")
			procs = procs || kv == "GOMAXPROCS=1"       // Spec.MaxProcs
			mtls = mtls || name == "PLUGIN_CLIENT_CERT" // AutoMTLS: only an Inspect runs without it
			if name != "HOME" && name != "TMPDIR" && !strings.HasPrefix(name, "PLUGIN_") && name != "AXON_PLUGIN" && kv != "GOMAXPROCS=1" {
				t.Errorf("unexpected variable %s in plugin environment", name)
			}
		}
		if !procs {
			t.Errorf("GOMAXPROCS=1 (MaxProcs) missing from the plugin environment:\n%s", env)
		}
		if !mtls {
			t.Errorf("PLUGIN_CLIENT_CERT missing: a started plugin must run under go-plugin's AutoMTLS:\n%s", env)
		}
	})

	t.Run("configuration holds no credential", func(t *testing.T) {
		cfg := run(t, a, "config")
		if !strings.Contains(cfg, upA.URL) {
			t.Errorf("config = %s, want the base_url", cfg)
		}
	})

	t.Run("no direct network", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		accepted := make(chan struct{}, 1)
		go func() {
			if c, err := l.Accept(); err == nil {
				c.Close()
				accepted <- struct{}{}
			}
		}()
		out := run(t, a, "dial "+l.Addr().String())
		if !strings.HasPrefix(out, "dial error:") {
			t.Fatalf("plugin reached 127.0.0.1 directly: %q", out)
		}
		select {
		case <-accepted:
			t.Fatal("listener accepted a connection from the plugin")
		default:
		}
	})

	t.Run("egress refuses hosts off the allow list", func(t *testing.T) {
		out := run(t, a, "get "+upB.URL+"/steal")
		if !strings.Contains(out, "egress denied") {
			t.Fatalf("got %q, want egress denied", out)
		}
		if len(upB.seen()) != 0 {
			t.Fatal("plugin A reached plugin B's upstream")
		}
	})

	t.Run("smuggled auth headers are replaced", func(t *testing.T) {
		out := run(t, a, "get "+upA.URL+"/v1?key=evil Authorization: Bearer evil; x-api-key: evil")
		if !strings.Contains(out, "status 200") {
			t.Fatalf("got %q", out)
		}
		seen := upA.seen()
		if len(seen) != 1 || seen[0] != "Bearer "+secretA {
			t.Fatalf("upstream A saw credentials %q, want only the injected one", hideSecrets(seen, secretA, secretB))
		}
	})

	t.Run("each instance gets only its own credential", func(t *testing.T) {
		run(t, b, "get "+upB.URL+"/ok")
		for _, v := range upB.seen() {
			if v != "Bearer "+secretB {
				t.Errorf("upstream B saw %q", hideSecrets([]string{v}, secretA, secretB))
			}
		}
		for _, v := range upA.seen() {
			if strings.Contains(v, secretB) {
				t.Error("plugin A's upstream received B's credential")
			}
		}
	})

	t.Run("host still healthy", func(t *testing.T) {
		if out := run(t, a, "still here"); out != "still here" {
			t.Fatalf("got %q", out)
		}
	})

	t.Run("no credential in any plugin output, error or host log", func(t *testing.T) {
		all := strings.Join(transcript, "\n") + logs.String()
		for _, sec := range []string{secretA, secretB} {
			if strings.Contains(all, sec) {
				t.Fatalf("a credential appears in plugin output or host logs")
			}
		}
		if !strings.Contains(logs.String(), "axon.evil-a.egress: egress: plugin=evil-a method=GET") {
			t.Errorf("egress calls were not logged under the instance name:\n%s", logs)
		}
		if !strings.Contains(logs.String(), "axon.evil-a.axon-provider-hostile: configured") {
			t.Errorf("the plugin's own log lines did not reach the host log under its name:\n%s", logs)
		}
	})
}

func hideSecrets(vs []string, secrets ...string) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		for _, s := range secrets {
			v = strings.ReplaceAll(v, s, "<"+s[:8]+"…>")
		}
		out[i] = v
	}
	return out
}

// TestSandboxNoneHasNetwork proves the dial check above can fail: without
// the namespace the same plugin reaches the listener.
func TestSandboxNoneHasNetwork(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		if c, err := l.Accept(); err == nil {
			c.Close()
		}
	}()
	s := newSupervisor(t, &logbuf.Buffer{}, Options{})
	s.Add(Spec{Name: "open", Kind: sdk.KindProvider, Path: bin("hostile"), Sandbox: SandboxNone})
	in, _ := s.Instance("open")
	_, out, err := collect(context.Background(), in, "dial "+l.Addr().String())
	if err != nil || out != "dial ok" {
		t.Fatalf("sandbox none: %q %v", out, err)
	}
}

// TestEgressStreamsThroughPlugin runs an SSE upstream in lockstep with the
// host: it sends the next event only once the host has received the
// previous one as a text delta from the plugin subprocess. Any buffering on
// the way (egress, broker stream, plugin, provider stream) starves it.
func TestEgressStreamsThroughPlugin(t *testing.T) {
	t.Parallel()
	delivered := make(chan struct{}, 8)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for i := range 5 {
			io.WriteString(w, "data: event-"+string(rune('0'+i))+"\n\n")
			w.(http.Flusher).Flush()
			select {
			case <-delivered:
			case <-r.Context().Done():
				return
			}
		}
	}))
	defer srv.Close()
	al, _ := egress.NewAllowList(srv.URL)
	s := newSupervisor(t, &logbuf.Buffer{}, Options{})
	s.Add(Spec{Name: "sse", Kind: sdk.KindProvider, Path: bin("hostile"), Egress: &egress.Grant{Allow: al}})
	in, _ := s.Instance("sse")
	ctx, cancel := context.WithTimeout(context.Background(), 30_000_000_000)
	defer cancel()
	var got []string
	err := in.Generate(ctx, ask("sse "+srv.URL), sdk.SinkFunc(func(_ context.Context, ev sdk.Event) error {
		if ev.Type == sdk.EventTextDelta {
			got = append(got, ev.Text)
			delivered <- struct{}{}
		}
		return nil
	}))
	if err != nil {
		t.Fatalf("Generate: %v (events so far %q: a stall means the stream was buffered)", err, got)
	}
	if len(got) != 5 {
		t.Fatalf("got %q", got)
	}
}

// TestPluginCannotChooseWhereTheKeyGoes: without a preset or auth {}, a
// plugin that asks for its credential in a query parameter of its choosing
// is refused at start, and by Check, with an error that says how to allow
// it.
func TestPluginCannotChooseWhereTheKeyGoes(t *testing.T) {
	t.Setenv("AXON_TEST_KEY_Q", "sk-query-0123456789")
	up := newUpstream(t)
	al, _ := egress.NewAllowList(up.URL)
	grant := func(set bool) *egress.Grant {
		g := &egress.Grant{Allow: al, Inject: al, Credential: credref.MustParse("env:AXON_TEST_KEY_Q")}
		if set {
			g.Auth, g.AuthSet = sdk.Auth{Scheme: sdk.AuthBearer}, true
		}
		return g
	}
	s := newSupervisor(t, &logbuf.Buffer{}, Options{Env: []string{"AXON_TEST_INFO_AUTH=query:debug"}})
	s.Add(Spec{Name: "chooser", Kind: sdk.KindProvider, Path: bin("hostile"), Egress: grant(false)})
	s.Add(Spec{Name: "told", Kind: sdk.KindProvider, Path: bin("hostile"), Egress: grant(true)})
	chooser, _ := s.Instance("chooser")
	if err := chooser.Start(context.Background()); err == nil || !strings.Contains(err.Error(), `add auth { scheme = "query"  name = "debug" }`) {
		t.Fatalf("start = %v", err)
	}
	// The preflight of `axon serve` and `axon check` refuses it too.
	info, err := chooser.Inspect(context.Background())
	if err == nil {
		err = chooser.Check(info)
	}
	if err == nil || !strings.Contains(err.Error(), `add auth { scheme = "query"  name = "debug" }`) {
		t.Fatalf("inspect and check = %v", err)
	}
	told, _ := s.Instance("told")
	if _, out, err := collect(context.Background(), told, "get "+up.URL+"/v1"); err != nil || !strings.HasPrefix(out, "status 200") {
		t.Fatalf("the block's own auth {}: %q %v", out, err)
	}
	if seen := up.seen(); len(seen) != 1 || seen[0] != "Bearer sk-query-0123456789" {
		t.Fatalf("upstream saw %d credentials", len(seen))
	}
}

// TestPluginErrorsAreMasked: a plugin that got the key past the egress's
// masking (hex, here) and returns it in an error hands the host nothing:
// the supervisor masks it before the chain, the trail or a log sees it,
// and the error keeps its class.
func TestPluginErrorsAreMasked(t *testing.T) {
	const key = "sk-leak-7d1e5b3a9c"
	t.Setenv("AXON_TEST_KEY_L", key)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, hex.EncodeToString([]byte(strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))))
	}))
	defer up.Close()
	al, _ := egress.NewAllowList(up.URL)
	logs := &logbuf.Buffer{}
	s := newSupervisor(t, logs, Options{})
	s.Add(Spec{Name: "leaky", Kind: sdk.KindProvider, Path: bin("hostile"),
		Egress: &egress.Grant{Allow: al, Inject: al, Auth: sdk.Auth{Scheme: sdk.AuthBearer}, AuthSet: true, Credential: credref.MustParse("env:AXON_TEST_KEY_L")}})
	in, _ := s.Instance("leaky")
	_, _, err := collect(context.Background(), in, "leak "+up.URL+"/hex")
	if err == nil {
		t.Fatal("the leak verb returned no error")
	}
	if strings.Contains(err.Error(), key) || strings.Contains(logs.String(), key) {
		t.Fatalf("the key came back from the plugin: %v", err)
	}
	var se *sdk.Error
	if !errors.As(err, &se) || se.Class != sdk.ClassPermanent || se.Code != "[redacted]" || !strings.Contains(se.Message, "[redacted]") {
		t.Fatalf("error = %#v: want the class kept and the key masked", err)
	}
}
