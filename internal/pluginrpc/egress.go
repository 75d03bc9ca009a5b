package pluginrpc

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"sync"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/axonhq/axon/internal/pluginrpc/pb"
	"github.com/axonhq/axon/sdk"
)

// chunkSize bounds one body message. Response chunks are sent as soon as
// the upstream delivers bytes, so SSE events are never held back to fill one.
const chunkSize = 32 << 10

// firstChunk is the buffer a body is read into until a read fills it:
// room for a whole small reply (a chat completion of a few KB) in one
// message, a quarter of a big buffer.
const firstChunk = 8 << 10

// chunks and firstChunks hold the read buffers of body messages, so that a
// request costs no buffer of its own. A buffer goes straight into the
// message sent: Send marshals the message into gRPC's own buffers before it
// returns (neither side installs a stats handler or enables tracing, the
// only code that would keep the message longer), so the buffer may be read
// into again as soon as Send has returned.
var (
	chunks      = sync.Pool{New: func() any { b := make([]byte, chunkSize); return &b }}
	firstChunks = sync.Pool{New: func() any { b := make([]byte, firstChunk); return &b }}
)

// bodyBuf is the buffer one body is read into, in messages: 8 KB until a
// read fills it, 32 KB from then on. A streamed reply, an SSE event now and
// then for as long as the model writes, holds 8 KB for its whole life
// instead of 32 (64 such streams: 1.5 MB less in the host); a body that
// arrives faster than one small message a read moves to big messages after
// its first full read.
type bodyBuf struct {
	b    *[]byte
	pool *sync.Pool // the pool b goes back to
	full bool       // the last read filled b
}

func newBodyBuf() *bodyBuf { return &bodyBuf{b: firstChunks.Get().(*[]byte), pool: &firstChunks} }

// read reads once from r. The chunk it returns is valid until the next
// read, which is when a small buffer that the last read filled is swapped
// for a big one.
func (c *bodyBuf) read(r io.Reader) ([]byte, error) {
	if c.full && c.pool == &firstChunks {
		c.pool.Put(c.b)
		c.b, c.pool = chunks.Get().(*[]byte), &chunks
	}
	n, err := r.Read(*c.b)
	c.full = n == len(*c.b)
	return (*c.b)[:n], err
}

// release returns the buffer to its pool; the bodyBuf is not used again.
func (c *bodyBuf) release() { c.pool.Put(c.b) }

func headersToProto(h http.Header) []*pb.Header {
	out := make([]*pb.Header, 0, len(h))
	for k, v := range h {
		out = append(out, &pb.Header{Name: k, Values: v})
	}
	return out
}

func headersFromProto(hs []*pb.Header) http.Header {
	out := make(http.Header, len(hs))
	for _, h := range hs {
		for _, v := range h.GetValues() {
			out.Add(h.GetName(), v)
		}
	}
	return out
}

// egressServer runs on the host, inside the broker connection of one plugin
// process, and serves that plugin's egress with impl.
type egressServer struct {
	pb.UnimplementedEgressServer
	impl  sdk.Egress
	proxy bool // the block enables the HTTPS proxy: Tunnel calls are served
}

func (s *egressServer) Do(stream pb.Egress_DoServer) error {
	head, err := stream.Recv()
	if err != nil {
		return err
	}
	req := &sdk.EgressRequest{Method: head.GetMethod(), URL: head.GetUrl(), Header: headersFromProto(head.GetHeaders())}
	switch {
	case head.GetBodyEnd():
		req.Body = bytes.NewReader(head.GetBody()) // whole: no pipe, no goroutine
	case head.GetHasBody():
		pr, pw := io.Pipe()
		defer pr.Close()
		go pumpRequestBody(stream, head.GetBody(), pw)
		req.Body = pr
	}
	resp, err := s.impl.Do(stream.Context(), req)
	if err != nil {
		return toStatus(err)
	}
	defer resp.Body.Close()
	if err := stream.Send(&pb.EgressResponse{Status: int32(resp.StatusCode), Headers: headersToProto(resp.Header)}); err != nil {
		return err
	}
	buf := newBodyBuf()
	defer buf.release()
	msg := &pb.EgressResponse{}
	for {
		chunk, rerr := buf.read(resp.Body)
		if len(chunk) > 0 {
			msg.Body = chunk
			if err := stream.Send(msg); err != nil {
				return err
			}
		}
		if errors.Is(rerr, io.EOF) {
			return nil
		}
		if rerr != nil {
			return toStatus(rerr)
		}
	}
}

func pumpRequestBody(stream pb.Egress_DoServer, first []byte, pw *io.PipeWriter) {
	if len(first) > 0 {
		if _, err := pw.Write(first); err != nil {
			return
		}
	}
	for {
		m, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			pw.Close()
			return
		}
		if err != nil {
			pw.CloseWithError(err)
			return
		}
		if _, err := pw.Write(m.GetBody()); err != nil {
			return
		}
	}
}

// egressClient is the plugin's view of the host egress.
type egressClient struct {
	client pb.EgressClient
}

var _ sdk.Egress = (*egressClient)(nil)

func (c *egressClient) Do(ctx context.Context, req *sdk.EgressRequest) (*sdk.EgressResponse, error) {
	ctx, cancel := context.WithCancel(ctx)
	stream, err := c.client.Do(ctx)
	if err != nil {
		cancel()
		return nil, egressError(err)
	}
	head := &pb.EgressRequest{Method: req.Method, Url: req.URL, Headers: headersToProto(req.Header), HasBody: req.Body != nil}
	if err := sendRequest(stream, head, req.Header, req.Body); err != nil && !errors.Is(err, io.EOF) {
		cancel()
		return nil, egressError(err)
	}
	// io.EOF from Send means the host ended the call early; Recv has the reason.
	first, err := stream.Recv()
	if err != nil {
		cancel()
		return nil, egressError(err)
	}
	return &sdk.EgressResponse{
		StatusCode: int(first.GetStatus()),
		Header:     headersFromProto(first.GetHeaders()),
		Body:       &egressBody{stream: stream, cancel: cancel},
	}, nil
}

// sendRequest sends the head and the body. A body whose Content-Length is
// given and fits one message goes with the head, marked whole: one message
// instead of two or more, and the host needs no goroutine to receive it.
func sendRequest(stream pb.Egress_DoClient, head *pb.EgressRequest, header http.Header, body io.Reader) error {
	if body == nil {
		if err := stream.Send(head); err != nil {
			return err
		}
		return stream.CloseSend()
	}
	buf := chunks.Get().(*[]byte)
	defer chunks.Put(buf)
	if n, err := strconv.Atoi(header.Get("Content-Length")); err == nil && n >= 0 && n < len(*buf) {
		// One byte more than declared, to see the body end where it says.
		got, err := io.ReadFull(body, (*buf)[:n+1])
		switch {
		case got > n:
			return sdk.Permanentf("read request body: longer than its Content-Length %d", n)
		case !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF):
			return sdk.Permanentf("read request body: %v", err)
		case got < n:
			return sdk.Permanentf("read request body: %d bytes of its Content-Length %d", got, n)
		}
		head.Body, head.BodyEnd = (*buf)[:n], true
		if err := stream.Send(head); err != nil {
			return err
		}
		return stream.CloseSend()
	}
	if err := stream.Send(head); err != nil {
		return err
	}
	msg := &pb.EgressRequest{}
	for {
		n, rerr := body.Read(*buf)
		if n > 0 {
			msg.Body = (*buf)[:n]
			if err := stream.Send(msg); err != nil {
				return err
			}
		}
		if errors.Is(rerr, io.EOF) {
			break
		}
		if rerr != nil {
			return sdk.Permanentf("read request body: %v", rerr)
		}
	}
	return stream.CloseSend()
}

// egressBody reads response chunks as they arrive.
type egressBody struct {
	stream  pb.Egress_DoClient
	cancel  context.CancelFunc
	msg     pb.EgressResponse // received into again for every chunk
	pending []byte
	err     error
}

func (b *egressBody) Read(p []byte) (int, error) {
	for len(b.pending) == 0 {
		if b.err != nil {
			return 0, b.err
		}
		err := b.stream.RecvMsg(&b.msg)
		if errors.Is(err, io.EOF) {
			b.err = io.EOF
			continue
		}
		if err != nil {
			b.err = egressError(err)
			continue
		}
		b.pending = b.msg.GetBody()
	}
	n := copy(p, b.pending)
	b.pending = b.pending[n:]
	return n, nil
}

func (b *egressBody) Close() error {
	b.cancel()
	if b.err == nil {
		b.err = errors.New("egress: body closed")
	}
	return nil
}

// egressError reads a failed egress call on the plugin's side. A broken or
// closing connection to the host's egress (Unavailable, no detail) is
// "egress_unreachable", never the sdk.ErrPluginExited fromStatus would make
// of it: passed on by the plugin, that code would tell the host that this
// live plugin had died.
func egressError(err error) error {
	if st, ok := status.FromError(err); ok && st.Code() == codes.Unavailable && len(st.Details()) == 0 {
		return &sdk.Error{Class: sdk.ClassTransient, Code: "egress_unreachable", Message: "host egress unreachable: " + st.Message()}
	}
	return fromStatus(err, nil, false)
}
