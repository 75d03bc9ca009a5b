package pluginrpc

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/axonhq/axon/internal/pluginrpc/pb"
	"github.com/axonhq/axon/sdk"
)

// The plugin side of the host's HTTPS proxy: a CONNECT-only HTTP proxy on
// the plugin's own loopback (in the sandbox, the jail's lo, which nothing
// outside the jail can reach), for the plugin and the programs it runs to
// use as HTTPS_PROXY. Each CONNECT becomes one Egress.Tunnel call: the
// host checks the host name against the block's allow list, connects, and
// carries the bytes. Nothing is decided here: a hostile plugin that skips
// this code and calls Tunnel itself meets the same checks.

const (
	proxyHeadLimit   = 16 << 10         // a CONNECT request's head
	proxyHeadTimeout = 10 * time.Second // for the client to send it
)

// loopbackProxy is one plugin process's proxy listener.
type loopbackProxy struct {
	ln     net.Listener
	logger hclog.Logger
	url    string

	mu     sync.Mutex
	client pb.EgressClient // the newest Configure's egress
}

func (p *loopbackProxy) setClient(c pb.EgressClient) {
	p.mu.Lock()
	p.client = c
	p.mu.Unlock()
}

func (p *loopbackProxy) egress() pb.EgressClient {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.client
}

// startProxy listens on 127.0.0.1 and serves CONNECTs over client until
// the process ends.
func startProxy(client pb.EgressClient, logger hclog.Logger) (*loopbackProxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("https proxy: listen on loopback: %w", err)
	}
	p := &loopbackProxy{ln: ln, client: client, logger: logger, url: "http://" + ln.Addr().String()}
	go p.serve()
	return p, nil
}

func (p *loopbackProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			if !errors.Is(err, net.ErrClosed) {
				p.logger.Error("https proxy: accept", "error", err)
			}
			return
		}
		go p.handle(c.(*net.TCPConn))
	}
}

// handle reads one CONNECT, asks the host for the tunnel and carries it.
func (p *loopbackProxy) handle(c *net.TCPConn) {
	defer c.Close()
	c.SetReadDeadline(time.Now().Add(proxyHeadTimeout))
	head := &io.LimitedReader{R: c, N: proxyHeadLimit}
	br := bufio.NewReaderSize(head, 4<<10)
	req, err := http.ReadRequest(br)
	if err != nil {
		reply(c, http.StatusBadRequest, "this proxy takes one CONNECT host:port request")
		return
	}
	if req.Method != http.MethodConnect {
		reply(c, http.StatusMethodNotAllowed, "this proxy speaks CONNECT only (HTTPS); plain HTTP goes through the egress")
		return
	}
	c.SetReadDeadline(time.Time{})

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stream, err := p.egress().Tunnel(ctx)
	if err != nil {
		reply(c, http.StatusBadGateway, "the host's egress is unreachable")
		return
	}
	// io.EOF from Send means the host ended the call early (a refusal it
	// sends before reading): Recv has the reason.
	if err := stream.Send(&pb.TunnelFrame{Hostport: req.Host}); err != nil && !errors.Is(err, io.EOF) {
		reply(c, http.StatusBadGateway, "the host's egress is unreachable")
		return
	}
	first, err := stream.Recv()
	if err != nil || !first.GetEstablished() {
		code, msg := refusal(err)
		reply(c, code, msg)
		return
	}
	if _, err := io.WriteString(c, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		return
	}

	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // client → host
		defer wg.Done()
		if n := br.Buffered(); n > 0 { // bytes the client sent right after its head
			b, _ := br.Peek(n)
			if stream.Send(&pb.TunnelFrame{Data: b}) != nil {
				return
			}
		}
		buf := newBodyBuf() // a tunnel may idle for minutes between bursts
		defer buf.release()
		for {
			chunk, rerr := buf.read(c)
			if len(chunk) > 0 {
				if stream.Send(&pb.TunnelFrame{Data: chunk}) != nil {
					return
				}
			}
			if rerr != nil {
				stream.Send(&pb.TunnelFrame{CloseWrite: true})
				stream.CloseSend()
				return
			}
		}
	}()
	for { // host → client
		f, rerr := stream.Recv()
		if rerr != nil {
			break // the host ended the tunnel (io.EOF) or a limit did
		}
		if _, werr := c.Write(f.GetData()); werr != nil {
			break
		}
	}
	c.Close() // unblocks the reader above
	cancel()
	wg.Wait()
}

// refusal is the proxy's answer to a tunnel the host refused.
func refusal(err error) (int, string) {
	var se *sdk.Error
	if errors.As(fromStatus(err, nil, true), &se) {
		switch {
		case se.Code == sdk.ErrEgressDenied.Code:
			return http.StatusForbidden, se.Message
		case se.Code == sdk.ErrTimeout.Code:
			return http.StatusGatewayTimeout, se.Message
		case se.Code == sdk.ErrEgressLimit.Code:
			return http.StatusTooManyRequests, se.Message
		}
		return http.StatusBadGateway, se.Message
	}
	return http.StatusBadGateway, "the host refused the tunnel"
}

// reply writes a short proxy error response and nothing more.
func reply(c net.Conn, code int, msg string) {
	msg = strings.ReplaceAll(msg, "\n", " ")
	fmt.Fprintf(c, "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s\n",
		code, http.StatusText(code), len(msg)+1, msg)
}
