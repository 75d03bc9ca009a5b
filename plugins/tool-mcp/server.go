package main

import (
	"context"
	"net/http"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/axonhq/axon/sdk/child"
)

// server is one connection to the MCP server: a session, and for a
// command the process behind it. Once broken (the server exited, a call
// timed out, the protocol broke) it is closed and never used again; the
// next call connects afresh.
type server struct {
	sess *mcp.ClientSession
	proc *process // nil for a url server

	closeOnce sync.Once
	done      chan struct{} // closed when the session has ended, for whatever reason
}

// connector starts servers: a command inside the plugin's sandbox, or a
// session over the host's egress.
type connector struct {
	s      *settings
	kids   *child.Reaper
	env    []string // the server's environment, built once
	dir    string   // its working directory: the plugin's TMPDIR
	client *mcp.Client
	http   *http.Client // the host's egress; nil for a command
}

// connect starts a server and completes the MCP handshake within ctx.
func (c *connector) connect(ctx context.Context) (*server, error) {
	srv := &server{done: make(chan struct{})}
	var transport mcp.Transport
	if c.s.url != "" {
		transport = &mcp.StreamableClientTransport{
			Endpoint:             c.s.url,
			HTTPClient:           c.http,
			MaxRetries:           -1, // a lost stream is a failed call here, not a silent resend of an unsafe one
			DisableStandaloneSSE: true,
			MaxEventSize:         maxMessage,
		}
	} else {
		proc, err := startProcess(c.kids, c.s.argv, c.env, c.dir)
		if err != nil {
			return nil, err
		}
		srv.proc = proc
		transport = &mcp.IOTransport{Reader: proc.reader(), Writer: proc.writer(), MaxLineLength: maxMessage}
	}
	sess, err := c.client.Connect(ctx, transport, nil)
	if err != nil {
		if srv.proc != nil {
			srv.proc.close()
		}
		return nil, err
	}
	srv.sess = sess
	go func() {
		_ = sess.Wait()
		close(srv.done)
	}()
	if srv.proc != nil {
		go func() {
			// A server that exits ends its session at once, even if
			// something it left behind still holds its stdout open.
			<-srv.proc.exited
			_ = sess.Close()
		}()
	}
	return srv, nil
}

// broken reports whether the session has ended.
func (s *server) broken() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// exitedAlone reports whether the server ended its stdout itself (it
// exited, or crashed), rather than the plugin giving up on what it sent.
func (s *server) exitedAlone() bool { return s.proc != nil && s.proc.out.eof.Load() }

// close kills the server (its whole group) and ends the session.
func (s *server) close() {
	s.closeOnce.Do(func() {
		if s.proc != nil {
			s.proc.kill()
		}
		_ = s.sess.Close()
		if s.proc != nil {
			s.proc.close()
		}
	})
}
