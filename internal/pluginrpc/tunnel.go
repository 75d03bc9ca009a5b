package pluginrpc

import (
	"context"
	"errors"
	"io"
	"sync"

	"github.com/axonhq/axon/internal/pluginrpc/pb"
	"github.com/axonhq/axon/sdk"
)

// Tunneler is an egress that also carries the CONNECT tunnels of the HTTPS
// proxy a plugin may be offered (host/egress.Service). Tunnel connects
// plugin to hostport after its checks, calls plugin.Established (when
// plugin has that method) once it has connected, copies bytes both ways
// until the tunnel ends, and closes plugin before it returns.
type Tunneler interface {
	Tunnel(ctx context.Context, hostport string, plugin io.ReadWriteCloser) error
}

// errNoProxy is the answer to a Tunnel call from a plugin whose block was
// not offered the proxy.
var errNoProxy = &sdk.Error{Class: sdk.ClassPermanent, Code: sdk.ErrEgressDenied.Code,
	Message: "CONNECT refused: this plugin's block does not enable the proxy (egress { proxy = true })"}

// Tunnel serves one CONNECT of the plugin's proxy: the first frame names
// host:port, the rest carry bytes. A refusal or a limit is the call's
// status; a tunnel both sides ended is OK.
func (s *egressServer) Tunnel(stream pb.Egress_TunnelServer) error {
	t, ok := s.impl.(Tunneler)
	if !ok || !s.proxy {
		return toStatus(errNoProxy)
	}
	first, err := stream.Recv()
	if err != nil {
		return err
	}
	end := newTunnelEnd(stream)
	defer end.Close()
	if err := t.Tunnel(stream.Context(), first.GetHostport(), end); err != nil {
		return toStatus(err)
	}
	return nil
}

// tunnelEnd is the plugin's side of a tunnel as the host's egress sees it:
// an io.ReadWriteCloser over the gRPC stream. A receiver goroutine and a
// sender goroutine own the stream's two directions, so Close returns at
// once and unblocks every Read and Write even when the plugin has stopped
// reading; both goroutines end with the call, right after the handler
// returns (gRPC cancels the stream then).
type tunnelEnd struct {
	in      chan []byte // data from the plugin; closed at its close_write or the stream's end
	inErr   error       // why in closed, read after it is
	pending []byte      // the unread rest of the last chunk
	out     chan sendReq
	done    chan struct{} // closed by Close
	once    sync.Once
}

type sendReq struct {
	frame *pb.TunnelFrame
	sent  chan error
}

func newTunnelEnd(stream pb.Egress_TunnelServer) *tunnelEnd {
	e := &tunnelEnd{in: make(chan []byte), out: make(chan sendReq), done: make(chan struct{})}
	go e.receive(stream)
	go e.send(stream)
	return e
}

func (e *tunnelEnd) receive(stream pb.Egress_TunnelServer) {
	defer close(e.in)
	for {
		f, err := stream.Recv()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				e.inErr = err
			}
			return
		}
		if len(f.GetData()) > 0 {
			select {
			case e.in <- f.GetData():
			case <-e.done:
				return
			}
		}
		if f.GetCloseWrite() {
			return
		}
	}
}

func (e *tunnelEnd) send(stream pb.Egress_TunnelServer) {
	for {
		select {
		case r := <-e.out:
			r.sent <- stream.Send(r.frame)
		case <-e.done:
			return
		}
	}
}

// Read returns the plugin's bytes, io.EOF once it said its side ended.
func (e *tunnelEnd) Read(p []byte) (int, error) {
	if len(e.pending) == 0 {
		select {
		case b, ok := <-e.in:
			if !ok {
				if e.inErr != nil {
					return 0, e.inErr
				}
				return 0, io.EOF
			}
			e.pending = b
		case <-e.done:
			return 0, io.ErrClosedPipe
		}
	}
	n := copy(p, e.pending)
	e.pending = e.pending[n:]
	return n, nil
}

// Write sends p to the plugin, in chunks of at most chunkSize.
func (e *tunnelEnd) Write(p []byte) (int, error) {
	written := 0
	for len(p) > 0 {
		n := min(len(p), chunkSize)
		// A copy: a Close may return Write while the sender still marshals
		// the frame. Write waits for the send otherwise (back-pressure).
		if err := e.frame(&pb.TunnelFrame{Data: append([]byte(nil), p[:n]...)}); err != nil {
			return written, err
		}
		written += n
		p = p[n:]
	}
	return written, nil
}

// Established tells the plugin's proxy that the host has connected
// upstream: it then answers the client's CONNECT with 200.
func (e *tunnelEnd) Established() { _ = e.frame(&pb.TunnelFrame{Established: true}) }

func (e *tunnelEnd) frame(f *pb.TunnelFrame) error {
	r := sendReq{frame: f, sent: make(chan error, 1)}
	select {
	case e.out <- r:
	case <-e.done:
		return io.ErrClosedPipe
	}
	select {
	case err := <-r.sent:
		return err
	case <-e.done:
		return io.ErrClosedPipe
	}
}

// Close ends the host's use of the stream; the call ends when Tunnel's
// handler returns.
func (e *tunnelEnd) Close() error {
	e.once.Do(func() { close(e.done) })
	return nil
}
