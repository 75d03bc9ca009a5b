package pluginrpc

import (
	"context"
	"errors"
	"io"
	"slices"
	"sync"

	"github.com/axonhq/axon/internal/pluginrpc/pb"
	"github.com/axonhq/axon/sdk"
)

type providerServer struct {
	pb.UnimplementedProviderServer
	impl sdk.Provider
}

func (s *providerServer) Models(ctx context.Context, _ *pb.Empty) (*pb.ModelsResponse, error) {
	out := &pb.ModelsResponse{}
	lister, ok := s.impl.(sdk.ModelLister)
	if !ok {
		return out, nil
	}
	ms, err := lister.Models(ctx)
	if err != nil {
		return nil, toStatus(err)
	}
	for _, m := range ms {
		out.Models = append(out.Models, &pb.Model{Id: m.ID, ContextWindow: m.ContextWindow, MaxOutputTokens: m.MaxOutputTokens})
	}
	return out, nil
}

func (s *providerServer) Generate(req *pb.GenerateRequest, stream pb.Provider_GenerateServer) error {
	ctx := stream.Context()
	if !req.GetBatchEvents() {
		return toStatus(s.impl.Generate(ctx, requestFromProto(req), &streamSink{stream: stream}))
	}
	sink := newBatchSink(stream)
	err := s.impl.Generate(ctx, requestFromProto(req), sink)
	if serr := sink.close(); err == nil {
		err = serr
	}
	return toStatus(err)
}

// streamSink sends events on a gRPC stream, one message each, to a host
// that does not read Event.more; safe for concurrent Send.
type streamSink struct {
	mu     sync.Mutex
	stream pb.Provider_GenerateServer
}

func (s *streamSink) Send(ctx context.Context, ev sdk.Event) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stream.Send(eventToProto(ev))
}

// Batch bounds: events queued while a message is on its way (the provider
// waits for room beyond them), and what one message carries.
const (
	batchQueue     = 64
	batchMaxEvents = 64
	batchMaxBytes  = 1 << 20 // content bytes; far below the message limit
)

// batchSink sends events on a gRPC stream from a goroutine of its own. An
// event that finds it idle goes out at once, alone; the events that arrive
// while a message is being sent (the host reads slower than the provider
// writes, or the provider decodes several events from one upstream read
// before the sender runs) queue, and the next message carries all of them.
// Nothing waits for a batch to fill. Safe for concurrent Send.
type batchSink struct {
	stream pb.Provider_GenerateServer
	events chan *pb.Event
	quit   chan struct{} // closed by close: send what is queued, then stop
	dead   chan struct{} // closed when the sender has stopped
	err    error         // why it stopped early; read after dead is closed
}

var _ sdk.Sink = (*batchSink)(nil)

func newBatchSink(stream pb.Provider_GenerateServer) *batchSink {
	s := &batchSink{stream: stream, events: make(chan *pb.Event, batchQueue), quit: make(chan struct{}), dead: make(chan struct{})}
	go s.run()
	return s
}

// protoEvents are the messages batchSink sends events in, reused: Send
// marshals them before it returns.
var protoEvents = sync.Pool{New: func() any { return new(pb.Event) }}

// errSinkClosed refuses an event sent after Generate returned.
var errSinkClosed = sdk.Permanentf("protocol error: an event after Generate returned")

func (s *batchSink) Send(ctx context.Context, ev sdk.Event) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	select {
	case <-s.quit:
		return errSinkClosed
	default:
	}
	pe := protoEvents.Get().(*pb.Event)
	setEvent(pe, ev)
	select {
	case s.events <- pe:
		return nil
	case <-s.dead:
		if s.err != nil {
			return s.err
		}
		return errSinkClosed
	case <-ctx.Done():
		return ctx.Err()
	}
}

// close sends what is queued and stops the sender; its error is the first
// failed send's.
func (s *batchSink) close() error {
	close(s.quit)
	<-s.dead
	return s.err
}

func (s *batchSink) run() {
	defer close(s.dead)
	batch := make([]*pb.Event, 0, batchMaxEvents)
	for {
		var first *pb.Event
		select {
		case first = <-s.events:
		case <-s.quit:
			select {
			case first = <-s.events: // Generate returned with events still queued
			default:
				return
			}
		}
		batch = append(batch[:0], first)
		size := eventBytes(first)
		for len(batch) < batchMaxEvents && size < batchMaxBytes && len(s.events) > 0 {
			ev := <-s.events // this goroutine alone receives: never blocks
			batch = append(batch, ev)
			size += eventBytes(ev)
		}
		first.More = batch[1:]
		err := s.stream.Send(first) // marshalled before it returns: batch is free again
		for _, ev := range batch {
			ev.Reset()
			protoEvents.Put(ev)
		}
		clear(batch)
		if err != nil {
			s.err = err
			return
		}
	}
}

// eventBytes is about what ev adds to a message.
func eventBytes(ev *pb.Event) int {
	n := len(ev.Text) + len(ev.Signature) + len(ev.Redacted)
	if c := ev.ToolCall; c != nil {
		n += len(c.Id) + len(c.Name) + len(c.InputJson)
	}
	return n
}

// eventBatches are the host's slices for events that arrive together,
// reused across calls; they go back cleared.
var eventBatches sync.Pool

// ProviderClient is the host's handle on a provider plugin.
type ProviderClient struct {
	remote
	client pb.ProviderClient
}

// Models lists the models the provider serves.
func (c *ProviderClient) Models(ctx context.Context) ([]sdk.Model, error) {
	resp, err := c.client.Models(ctx, &pb.Empty{})
	if err != nil {
		return nil, c.err(ctx, err)
	}
	var out []sdk.Model
	for _, m := range resp.GetModels() {
		out = append(out, sdk.Model{ID: m.GetId(), ContextWindow: m.GetContextWindow(), MaxOutputTokens: m.GetMaxOutputTokens()})
	}
	return out, nil
}

// Generate streams the plugin's events into out. If the plugin process dies
// mid-stream the error is sdk.ErrPluginExited.
//
// Events the plugin sends together in one message go to out together
// (sdk.SendBatch), so a front door writes them with one flush.
func (c *ProviderClient) Generate(ctx context.Context, req *sdk.Request, out sdk.Sink) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	preq := requestToProto(req)
	preq.BatchEvents = true
	stream, err := c.client.Generate(ctx, preq)
	if err != nil {
		return c.err(ctx, err)
	}
	var batch []sdk.Event
	defer func() {
		if cap(batch) > 0 {
			eventBatches.Put(&batch)
		}
	}()
	for {
		ev, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return c.err(ctx, err)
		}
		if len(ev.GetMore()) == 0 {
			err = out.Send(ctx, eventFromProto(ev))
		} else {
			if batch == nil {
				if b, ok := eventBatches.Get().(*[]sdk.Event); ok {
					batch = *b
				}
			}
			batch = append(slices.Grow(batch[:0], 1+len(ev.GetMore())), eventFromProto(ev))
			for _, m := range ev.GetMore() {
				batch = append(batch, eventFromProto(m))
			}
			err = sdk.SendBatch(ctx, out, batch)
			clear(batch) // drop the events' strings until the next batch
		}
		if err != nil {
			return err
		}
	}
}
