package egress

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/axonhq/axon/sdk"
)

// call is one egress request from Do until its response body ends. It owns
// the request's context, the total deadline and a concurrency slot, and
// ends the upstream request with the reason (a *sdk.Error as the
// context's cause) when a limit or deadline fires.
type call struct {
	ctx    context.Context
	cancel context.CancelCauseFunc // with a *sdk.Error: abort
	stop   context.CancelFunc      // the total deadline's
	slots  chan struct{}
	once   sync.Once
}

// begin takes a slot, or refuses at once when every slot is busy: a queue
// here would spend the caller's first-token and retry budget invisibly,
// while a transient error lets the chain retry with backoff or fall back.
func (s *Service) begin(parent context.Context, body io.Reader) (*call, error) {
	select {
	case s.slots <- struct{}{}:
	default:
		return nil, &sdk.Error{Class: sdk.ClassTransient, Code: sdk.ErrEgressLimit.Code,
			Message: fmt.Sprintf("egress: %d requests of this plugin already in flight (max_concurrent)", cap(s.slots))}
	}
	ctx, cancel := context.WithCancelCause(parent)
	ctx, stop := context.WithTimeoutCause(ctx, s.grant.TotalTimeout, &sdk.Error{Class: sdk.ClassTransient, Code: sdk.ErrTimeout.Code,
		Message: fmt.Sprintf("egress: request not finished within total_timeout %s", s.grant.TotalTimeout)})
	c := &call{ctx: ctx, cancel: cancel, stop: stop, slots: s.slots}
	// Whatever ends the call (the deadline, a limit, the caller) frees its
	// slot, even if no one reads or closes the response body.
	context.AfterFunc(ctx, c.end)
	// A Read blocked on the plugin's body holds net/http's writer
	// goroutine; closing the body, once the call is over, lets it go.
	if cl, ok := body.(io.Closer); ok {
		context.AfterFunc(ctx, func() { cl.Close() })
	}
	return c, nil
}

// abort ends the upstream request with err as the reason.
func (c *call) abort(err *sdk.Error) { c.cancel(err) }

// failure is the limit or deadline that ended the call, nil if none did.
func (c *call) failure() error {
	var e *sdk.Error
	if errors.As(context.Cause(c.ctx), &e) {
		return e
	}
	return nil
}

// end releases everything the call holds; it is safe to call twice.
func (c *call) end() {
	c.once.Do(func() {
		c.stop()
		c.cancel(nil)
		<-c.slots
	})
}

// requestBody streams the plugin's body upstream, counting it against
// max_request_bytes and bounding each wait for the plugin's next bytes by
// request_idle_timeout. Only time spent waiting on the plugin counts as
// idle: an upstream slow to take the bytes is the total deadline's concern.
type requestBody struct {
	r     io.Reader
	c     *call
	limit int64
	n     int64
	wait  time.Duration
	idle  *time.Timer
}

func (b *requestBody) stalled() {
	b.c.abort(&sdk.Error{Class: sdk.ClassTransient, Code: sdk.ErrTimeout.Code,
		Message: fmt.Sprintf("egress: the plugin sent no request body bytes for request_idle_timeout %s", b.wait)})
}

func (b *requestBody) Read(p []byte) (int, error) {
	if err := b.c.failure(); err != nil {
		return 0, err
	}
	if remaining := b.limit - b.n + 1; int64(len(p)) > remaining {
		p = p[:remaining]
	}
	if b.idle == nil {
		b.idle = time.AfterFunc(b.wait, b.stalled)
	} else {
		b.idle.Reset(b.wait)
	}
	n, err := b.r.Read(p)
	b.idle.Stop()
	if f := b.c.failure(); f != nil {
		return 0, f
	}
	b.n += int64(n)
	if b.n > b.limit {
		e := &sdk.Error{Class: sdk.ClassPermanent, Code: sdk.ErrEgressLimit.Code,
			Message: fmt.Sprintf("egress: request body exceeds the %d byte limit (max_request_bytes)", b.limit)}
		b.c.abort(e)
		return 0, e
	}
	return n, err
}
