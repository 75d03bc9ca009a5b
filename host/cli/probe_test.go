package cli

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// openaiProvider is an openai provider block for url (an upstream's root).
func openaiProvider(name, url, extra string) string {
	return fmt.Sprintf("provider %q {\n  plugin   = \"openai\"\n  base_url = \"%s/v1\"\n  model    = \"m\"\n%s}\n", name, url, extra)
}

// TestCheckProbeTable: --probe sends each provider block one request, on
// its own plugin process and egress, and prints one row per block in
// configuration order: what answered, whose key was refused, what could
// not be reached and why. Any failed probe is exit 1.
func TestCheckProbeTable(t *testing.T) {
	t.Parallel()
	keyFile := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(keyFile, []byte("sk-test-not-real"), 0o600); err != nil {
		t.Fatal(err)
	}
	ok := openaiUpstream(t, 200, "pong")
	denied := openaiUpstream(t, 401, `{"error":{"message":"bad key","type":"invalid_request_error","code":"invalid_api_key"}}`)
	missing := openaiUpstream(t, 404, `{"error":{"message":"The model 'm' does not exist","type":"invalid_request_error","code":"model_not_found"}}`)
	tls := httptest.NewTLSServer(http.NotFoundHandler()) // a certificate no one signed
	t.Cleanup(tls.Close)
	// Not in alphabetical order: the table keeps the configuration's.
	cfg := writeConfig(t, openaiProvider("zeta", ok.URL, "")+
		openaiProvider("refused", "http://"+closedPort(t), "")+
		openaiProvider("denied", denied.URL, `  credential = file("`+keyFile+`")`+"\n")+
		openaiProvider("nomodel", missing.URL, "")+
		openaiProvider("badtls", tls.URL, "")+
		`chain "default" { providers = [provider.zeta] }`)
	code, out, errOut := run(t, nil, "check", "--probe", "--config", cfg)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (some probes fail)\n%s\n%s", code, out, errOut)
	}
	rows := []string{
		`PROVIDER +PLUGIN +MODEL +REACHABLE +AUTH +LATENCY +RESULT`,
		`zeta +openai +m +yes +no key +\S+ +ok`,
		`refused +openai +m +no +- +\S+ +transient: connection refused at http://127\.0\.0\.1:\d+/v1`,
		`denied +openai +m +yes +no +\S+ +auth_required \(HTTP 401\): the key in the file ` + regexp.QuoteMeta(keyFile) + ` was refused`,
		`nomodel +openai +m +yes +no key +\S+ +permanent \(HTTP 404\): model "m" or the endpoint not found`,
		`badtls +openai +m +no +- +\S+ +transient: TLS: failed to verify certificate: x509: certificate signed by unknown authority`,
	}
	want := regexp.MustCompile(`(?m)^` + strings.Join(rows, `\n`) + `\n`)
	if !want.MatchString(out) {
		t.Errorf("the table does not match\n%s\nstdout:\n%s\nstderr:\n%s", want, out, errOut)
	}
	if !strings.Contains(errOut, "4 of 5 provider probes failed") {
		t.Errorf("stderr does not count the failed probes:\n%s", errOut)
	}
	if strings.Contains(out+errOut, "sk-test-not-real") {
		t.Errorf("the key was printed:\n%s\n%s", out, errOut)
	}

	// Without --probe nothing is sent, and no table is printed.
	code, out, errOut = run(t, nil, "check", "--config", cfg)
	if code != 0 || strings.Contains(out, "REACHABLE") {
		t.Errorf("check without --probe: exit %d\n%s\n%s", code, out, errOut)
	}
}

// TestCheckProbeAllOK: every probe answering is exit 0.
func TestCheckProbeAllOK(t *testing.T) {
	t.Parallel()
	up := openaiUpstream(t, 200, "pong")
	code, out, errOut := run(t, nil, "check", "--probe", "--config", writeConfig(t, chainConfig(up.URL)))
	if code != 0 || !regexp.MustCompile(`(?m)^mock +openai +m +yes +no key +\S+ +ok$`).MatchString(out) {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
}

// TestCheckProbesAtOnce: each upstream holds its request until the other
// one has one too, so the probes answer only if they run concurrently (run
// one after the other, the first would wait out its timeout).
func TestCheckProbesAtOnce(t *testing.T) {
	t.Parallel()
	var arrived sync.WaitGroup
	arrived.Add(2)
	both := make(chan struct{})
	go func() { arrived.Wait(); close(both) }()
	var once [2]sync.Once
	held := func(i int) *httptest.Server {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			once[i].Do(arrived.Done)
			select {
			case <-both:
			case <-r.Context().Done():
				return
			}
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "data: {\"id\":\"c\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"pong\"}}]}\n\n"+
				"data: {\"id\":\"c\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
		}))
		t.Cleanup(srv.Close)
		return srv
	}
	a, b := held(0), held(1)
	cfg := writeConfig(t, openaiProvider("a", a.URL, "")+openaiProvider("b", b.URL, "")+`chain "default" { providers = [provider.a, provider.b] }`)
	code, out, errOut := run(t, nil, "check", "--probe", "--probe-timeout", "20s", "--config", cfg)
	if code != 0 {
		t.Fatalf("exit %d: the probes did not run at once\n%s\n%s", code, out, errOut)
	}
}

// TestCheckProbeTimeout: an upstream that never answers is a timeout row
// once --probe-timeout has passed, not a hung check.
func TestCheckProbeTimeout(t *testing.T) {
	t.Parallel()
	silent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		<-r.Context().Done()
	}))
	t.Cleanup(silent.Close)
	cfg := writeConfig(t, openaiProvider("silent", silent.URL, "")+`chain "default" { providers = [provider.silent] }`)
	code, out, errOut := run(t, nil, "check", "--probe", "--probe-timeout", "1s", "--config", cfg)
	if code != 1 || !regexp.MustCompile(`(?m)^silent +openai +m +- +- +\S+ +timeout: no answer within 1s \(--probe-timeout\)$`).MatchString(out) {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
}

// TestCanaryKeyNotInCheckProbeOutput: a 401 that quotes the key back, a
// 400 whose message the table prints, and a log level that prints
// everything: `check --probe` prints no key.
func TestCanaryKeyNotInCheckProbeOutput(t *testing.T) {
	t.Parallel()
	quoting := func(status int) *httptest.Server {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			key := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			fmt.Fprintf(w, `{"error":{"code":%q,"message":"bad key %s"}}`, key, key)
		}))
		t.Cleanup(srv.Close)
		return srv
	}
	keyFile := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(keyFile, []byte(canary), 0o600); err != nil {
		t.Fatal(err)
	}
	key := `  credential = file("` + keyFile + `")` + "\n"
	cfg := writeConfig(t, openaiProvider("quote401", quoting(http.StatusUnauthorized).URL, key)+
		openaiProvider("quote400", quoting(http.StatusBadRequest).URL, key)+
		`chain "default" { providers = [provider.quote401] }`)
	code, out, errOut := run(t, nil, "--log-level", "trace", "check", "--probe", "--config", cfg)
	if strings.Contains(out+errOut, canary) {
		t.Fatalf("check --probe printed the key:\n%s\n%s", out, errOut)
	}
	for _, row := range []string{`quote401 +openai +m +yes +no +\S+ +auth_required`, `quote400 +openai +m +yes +yes +\S+ +permanent \(HTTP 400\): `} {
		if !regexp.MustCompile(`(?m)^` + row).MatchString(out) {
			t.Errorf("the test proves nothing: no row %s: exit %d\n%s\n%s", row, code, out, errOut)
		}
	}
}
