package pluginrpc

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/go-hclog"
	"google.golang.org/grpc"

	"github.com/axonhq/axon/internal/pluginrpc/pb"
	"github.com/axonhq/axon/sdk"
)

// dialTunneler is an egress that tunnels to the hostports it allows, as
// host/egress.Service does after its checks: connect, say established,
// copy both ways, close.
type dialTunneler struct {
	egressFunc
	allow map[string]bool
	mu    sync.Mutex
	asked []string
}

func (d *dialTunneler) Tunnel(ctx context.Context, hostport string, plugin io.ReadWriteCloser) error {
	defer plugin.Close()
	d.mu.Lock()
	d.asked = append(d.asked, hostport)
	d.mu.Unlock()
	if !d.allow[hostport] {
		return sdk.ErrEgressDenied.Newf("egress denied: CONNECT %s: not in the allow list", hostport)
	}
	up, err := (&net.Dialer{}).DialContext(ctx, "tcp", hostport)
	if err != nil {
		return sdk.Transientf("connect %s: %v", hostport, err)
	}
	defer up.Close()
	plugin.(interface{ Established() }).Established()
	done := make(chan struct{})
	go func() { io.Copy(up, plugin); up.(*net.TCPConn).CloseWrite(); close(done) }()
	io.Copy(plugin, up)
	plugin.Close()
	<-done
	return nil
}

// proxyPair serves impl as the host's egress (proxy as the block says) and
// starts the plugin's loopback proxy over it.
func proxyPair(t *testing.T, impl sdk.Egress, proxy bool) *url.URL {
	t.Helper()
	conn := connect(t, func(s *grpc.Server) { pb.RegisterEgressServer(s, &egressServer{impl: impl, proxy: proxy}) })
	p, err := startProxy(pb.NewEgressClient(conn), hclog.NewNullLogger())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.ln.Close() })
	u, _ := url.Parse(p.url)
	return u
}

// TestProxyCarriesTLS: an HTTPS client configured with the proxy (as
// HTTPS_PROXY would) reaches an allowed TLS server through the host's
// tunnel, the TLS end to end between them; a host the egress refuses gets
// the refusal as the proxy's 403 and nothing else.
func TestProxyCarriesTLS(t *testing.T) {
	t.Parallel()
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "hello over "+r.Proto+" with "+r.Header.Get("Authorization")+".")
	}))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "https://")
	eg := &dialTunneler{allow: map[string]bool{host: true}}
	proxyURL := proxyPair(t, eg, true)

	client := srv.Client()
	client.Transport.(*http.Transport).Proxy = http.ProxyURL(proxyURL)
	resp, err := client.Get(srv.URL + "/x")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "hello over HTTP/1.1 with ." {
		t.Errorf("through the proxy: %q", body)
	}

	_, err = client.Get("https://127.0.0.1:1/")
	if err == nil || !strings.Contains(err.Error(), "Forbidden") {
		t.Errorf("a refused host: %v, want the proxy's 403", err)
	}
	eg.mu.Lock()
	defer eg.mu.Unlock()
	if strings.Join(eg.asked, " ") != host+" 127.0.0.1:1" {
		t.Errorf("the host was asked for %v", eg.asked)
	}
}

// TestProxyRefuses: the proxy speaks CONNECT only, refuses a head it
// cannot read, and a block without the proxy gets every tunnel refused by
// the host, whatever its plugin sends.
func TestProxyRefuses(t *testing.T) {
	t.Parallel()
	eg := &dialTunneler{allow: map[string]bool{}}
	on := proxyPair(t, eg, true)
	for _, tc := range []struct{ name, send, want string }{
		{"plain HTTP", "GET http://example.com/ HTTP/1.1\r\nHost: example.com\r\n\r\n", "HTTP/1.1 405 "},
		{"garbage", "\x16\x03\x01 not http\r\n\r\n", "HTTP/1.1 400 "},
		{"a head past the limit", "CONNECT a:443 HTTP/1.1\r\nX: " + strings.Repeat("a", proxyHeadLimit) + "\r\n\r\n", "HTTP/1.1 400 "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := rawProxy(t, on, tc.send); !strings.HasPrefix(got, tc.want) {
				t.Errorf("got %q, want %q…", got, tc.want)
			}
		})
	}
	off := proxyPair(t, &dialTunneler{allow: map[string]bool{"127.0.0.1:1": true}}, false)
	if got := rawProxy(t, off, "CONNECT 127.0.0.1:1 HTTP/1.1\r\nHost: 127.0.0.1:1\r\n\r\n"); !strings.HasPrefix(got, "HTTP/1.1 403 ") || !strings.Contains(got, "does not enable the proxy") {
		t.Errorf("a block without the proxy: %q", got)
	}
}

// rawProxy sends raw to the proxy and returns its status line and the
// rest of its answer.
func rawProxy(t *testing.T, proxy *url.URL, raw string) string {
	t.Helper()
	c, err := net.Dial("tcp", proxy.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	go io.WriteString(c, raw) // the proxy may answer before it has read it all
	b, _ := io.ReadAll(bufio.NewReader(c))
	return string(b)
}
