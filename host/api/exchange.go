package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"

	"github.com/axonhq/axon/sdk"
)

// dialect is one client wire format.
type dialect interface {
	// decode parses a request body; its errors are *wireError.
	decode(body []byte) (*call, error)
	// errorBody renders a failure as a status and a JSON body.
	errorBody(e *wireError) (int, []byte)
	// idPrefix starts the ids of responses ("chatcmpl-", "msg_").
	idPrefix() string
	// whole renders a complete, non-streamed answer.
	whole(m meta, t *turn) ([]byte, error)
	// stream starts the writer of a streamed answer.
	stream(m meta, c *call) streamEncoder
}

// call is a decoded client request.
type call struct {
	model        string // the model field as sent
	req          *sdk.Request
	stream       bool
	includeUsage bool           // OpenAI stream_options.include_usage
	task         string         // metadata.task: the task hint routing prefers providers by
	ignored      string         // the x-axon-ignored header: fields sent that changed nothing
	responses    *responsesCall // the Responses API's own, nil for the other formats
}

// meta names one response.
type meta struct {
	id      string
	created int64  // Unix seconds
	model   string // the model that answered, as well as it is known
}

// streamEncoder writes the SSE frames of one streamed answer. Each method
// appends complete frames to b and returns it; the exchange writes and
// flushes them after every event, or every batch of events that arrived
// together.
type streamEncoder interface {
	open(b []byte, t *turn) []byte                // the frames before any content
	event(b []byte, t *turn, ev sdk.Event) []byte // one content event
	end(b []byte, t *turn) []byte                 // the end of a complete answer
	fail(b []byte, e *wireError) []byte           // the end of a broken one
}

// exchange is the sink a Target writes one request's answer into. For a
// stream it writes the headers when the first content event arrives, then
// frames as events come; for a whole response it collects until finish.
// Sends are serialised, and refused once the response is finished: the
// handler has returned, and its ResponseWriter must not be touched.
type exchange struct {
	cfg    config
	w      *recorder
	d      dialect
	c      *call
	id     string
	chain  string             // the chain the requested model runs on, until an Answer says more
	client context.Context    // the request's: done when the client has gone
	cancel context.CancelFunc // stops the backend call

	mu        sync.Mutex
	turn      turn
	ann       Answer
	committed bool          // the target committed to a provider (commit was called)
	enc       streamEncoder // set once the stream has started
	buf       []byte        // frames not yet written
	unflushed bool          // frames written since the last flush
	closed    bool
	ended     bool       // the response was ended before Generate returned (shutdown)
	werr      error      // writing to the client failed
	failure   *wireError // why the front door stopped the answer itself, if it did
	stopErr   error      // what Send returns once failure is set
	final     []byte     // the complete answer's body (the last event's, streamed), once sent whole
}

var _ sdk.BatchSink = (*exchange)(nil)

// newExchange starts the exchange of one request on chain; client is the
// request's context and cancel stops the backend call made for it.
func newExchange(cfg config, w *recorder, d dialect, c *call, chain string, client context.Context, cancel context.CancelFunc) *exchange {
	return &exchange{
		cfg: cfg, w: w, d: d, c: c, chain: chain, client: client, cancel: cancel,
		id: d.idPrefix() + cfg.newID(),
		// A Responses stream repeats its items whole at the end (…done
		// events, response.completed): its writer keeps them, within the
		// same bound as a whole answer.
		turn: turn{keepParts: !c.stream, bounded: c.responses != nil, maxKept: cfg.maxAnswer, newID: cfg.newID},
	}
}

// commit is the commit callback of Target.Generate: it records who is about
// to answer, for the headers written with the first event (a call after it
// only updates the trailer sent at the end of a stream), and that a failure
// from now on broke off an answer.
func (x *exchange) commit(a Answer) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.ann = mergeAnswer(x.ann, a)
	x.committed = true
}

// Send implements sdk.Sink.
func (x *exchange) Send(_ context.Context, ev sdk.Event) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if err := x.add(ev); err != nil {
		return err
	}
	return x.flush()
}

// SendBatch implements sdk.BatchSink: the events are taken as Send takes
// them, and their frames go to the client with one flush. A batch holds
// only events that were already waiting, so nothing is held back for it.
func (x *exchange) SendBatch(_ context.Context, evs []sdk.Event) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, ev := range evs {
		if err := x.add(ev); err != nil {
			if x.werr == nil {
				_ = x.flush() // the events before it are the client's, as one by one
			}
			return err
		}
	}
	return x.flush()
}

// add takes one event and writes its frames to the response writer, which
// buffers them until the next flush. Call with x.mu held.
func (x *exchange) add(ev sdk.Event) error {
	switch {
	case x.stopErr != nil:
		return x.stopErr
	case x.closed:
		return sdk.Permanentf("event %q after the response was finished", ev.Type)
	case x.werr != nil:
		return x.werr
	case x.client.Err() != nil:
		x.werr = clientGone(x.client.Err())
		return x.werr
	}
	ev, err := x.turn.add(ev)
	if err != nil {
		var big *answerTooLargeError
		if errors.As(err, &big) {
			x.stop(&wireError{kind: kindUpstream, code: "answer_too_large", message: big.Error()},
				&sdk.Error{Class: sdk.ClassPermanent, Code: "answer_too_large", Message: big.Error()})
			return x.stopErr
		}
		return err
	}
	x.w.rec.Events++
	if !x.c.stream || !isContent(ev.Type) {
		return nil
	}
	if x.enc == nil {
		x.begin()
	}
	x.buf = x.enc.event(x.buf, &x.turn, ev)
	return x.write()
}

func isContent(t sdk.EventType) bool {
	return t == sdk.EventTextDelta || t == sdk.EventReasoningDelta || t == sdk.EventToolCall
}

// begin starts a stream: headers, status, and the opening frames, which go
// out with the first event's.
func (x *exchange) begin() {
	h := x.w.Header()
	x.setAxonHeaders(h)
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no") // reverse proxies must not hold frames back
	x.w.WriteHeader(http.StatusOK)
	x.w.rec.FirstByte = x.cfg.now().Sub(x.w.start)
	x.enc = x.d.stream(x.meta(), x.c)
	x.buf = x.enc.open(x.buf, &x.turn)
}

// flush writes the pending frames and pushes everything written since the
// last flush to the client.
func (x *exchange) flush() error {
	if err := x.write(); err != nil {
		return err
	}
	if !x.unflushed {
		return nil
	}
	x.unflushed = false
	if err := x.w.flush(); err != nil {
		x.werr = clientGone(err)
		return x.werr
	}
	return nil
}

// write hands the pending frames to the response writer, which buffers
// them; x.buf, one event's frames, is reused, so a batch of events costs
// no buffer of its own.
func (x *exchange) write() error {
	if len(x.buf) == 0 {
		return nil
	}
	_, err := x.w.Write(x.buf)
	x.buf = x.buf[:0]
	x.unflushed = true
	if err != nil {
		x.werr = clientGone(err)
		return x.werr
	}
	return nil
}

// clientGone is what Send returns once the client cannot be written to:
// it wraps context.Canceled, so the backend and its observers can tell a
// client that left from a provider that failed.
func clientGone(cause error) error {
	return fmt.Errorf("the client went away (%v): %w", cause, context.Canceled)
}

// stop ends the answer for a reason of the front door's own (e): the
// backend call is cancelled and further events are refused with err. The
// client is told e when Generate returns.
func (x *exchange) stop(e *wireError, err error) {
	x.failure, x.stopErr = e, err
	x.cancel()
}

// shutdown ends a response still running when the server shuts down, at
// once and whatever the backend does: a started stream with an in-band
// error event, anything else with a 503 / 529. It runs on a goroutine of its
// own; the mutex orders it with Send and finish, and once finish has run it
// does nothing.
func (x *exchange) shutdown() {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.closed {
		return
	}
	e := shuttingDown(x.enc != nil, x.cfg.retryAfter)
	x.stop(e, &sdk.Error{Class: sdk.ClassTransient, Code: e.code, Message: e.message})
	x.closed, x.ended = true, true
	x.fail(e)
	_ = x.w.flush() // a whole response's error goes out now, not when the backend returns
}

// finish completes the response once Generate has returned ans and err.
func (x *exchange) finish(ans *Answer, err error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.closed = true
	if ans != nil {
		x.ann = mergeAnswer(x.ann, *ans)
	}
	x.w.rec.Provider, x.w.rec.Chain = x.ann.Provider, x.chainName()
	switch {
	case x.ended:
		return // shutdown has told the client
	case x.werr != nil || x.client.Err() != nil:
		// The client left: nobody can be told anything, and whatever failed
		// after that is no provider's fault.
		x.w.rec.Canceled, x.w.rec.Status = true, StatusClientClosedRequest
		return
	case x.failure != nil:
		x.fail(x.failure)
		return
	}
	switch {
	case err != nil:
		x.w.rec.Committed = x.committed
		x.fail(classify(err))
	case x.c.stream:
		if x.enc == nil {
			x.begin() // an answer without content is still an answer
		}
		x.buf = x.enc.end(x.buf, &x.turn)
		if f, ok := x.enc.(interface{ finalBody() []byte }); ok {
			x.final = f.finalBody()
		}
		x.setTrailer()
		// Written, not flushed: the handler returns now, and net/http sends
		// these frames with the stream's last chunk and the trailer in one
		// write. A client that left sees nothing; the record says Canceled.
		_ = x.write()
	default:
		body, err := x.d.whole(x.meta(), &x.turn)
		if err != nil {
			x.fail(classify(sdk.Permanentf("rendering the answer: %v", err)))
			return
		}
		x.setAxonHeaders(x.w.Header())
		writeJSON(x.w, http.StatusOK, body)
		x.final = body
	}
}

// fail reports e: as an HTTP error while nothing was sent, and in band, as
// the stream's last frame, once the stream has started.
func (x *exchange) fail(e *wireError) {
	x.w.rec.Class = e.class
	if x.enc == nil {
		x.setAxonHeaders(x.w.Header())
		writeError(x.w, x.d, e)
		return
	}
	x.w.rec.InBand, x.w.rec.Code = true, e.code
	x.buf = x.enc.fail(x.buf, e)
	x.setTrailer()
	_ = x.flush()
}

func (x *exchange) meta() meta {
	model := x.turn.model
	if model == "" {
		model = x.ann.Model
	}
	if model == "" {
		model = x.c.model
	}
	return meta{id: x.id, created: x.cfg.now().Unix(), model: model}
}

func (x *exchange) chainName() string {
	if x.ann.Chain != "" {
		return x.ann.Chain
	}
	return x.chain
}

// setAxonHeaders names who answered: set before the first byte of a
// response, from what the backend announced or returned.
func (x *exchange) setAxonHeaders(h http.Header) {
	setIf(h, "x-axon-chain", x.chainName())
	setIf(h, "x-axon-provider", x.ann.Provider)
	setIf(h, "x-axon-trail", x.ann.Trail)
	if x.committed && len(x.ann.Unrendered) > 0 {
		// What the answering provider leaves out joins what the front
		// door dropped.
		x.w.rec.Ignored = withUnrendered(x.c.ignored, x.d, x.ann.Unrendered)
		h.Set("x-axon-ignored", x.w.rec.Ignored)
	}
}

// setTrailer sends the final trail at the end of a stream: the header went
// out when the first event did, before the chain had finished.
func (x *exchange) setTrailer() {
	setIf(x.w.Header(), http.TrailerPrefix+"x-axon-trail", x.ann.Trail)
}

func setIf(h http.Header, key, value string) {
	if value != "" {
		h.Set(key, value)
	}
}

// mergeAnswer updates a with the fields b sets.
func mergeAnswer(a, b Answer) Answer {
	if b.Provider != "" {
		a.Provider = b.Provider
	}
	if b.Model != "" {
		a.Model = b.Model
	}
	if b.Chain != "" {
		a.Chain = b.Chain
	}
	if b.Trail != "" {
		a.Trail = b.Trail
	}
	if b.Unrendered != nil {
		a.Unrendered = b.Unrendered
	}
	return a
}
