package daemon

import (
	"context"
	"errors"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/axonhq/axon/host/chain"
	"github.com/axonhq/axon/sdk"
)

const haltTimeout = 10 * time.Second

// multiObserver fans chain events out to several observers.
type multiObserver []chain.Observer

var _ chain.Observer = multiObserver(nil)

func (m multiObserver) OnTurnStart(c string) {
	for _, o := range m {
		o.OnTurnStart(c)
	}
}

func (m multiObserver) OnHop(c string, a chain.Attempt) {
	for _, o := range m {
		o.OnHop(c, a)
	}
}

func (m multiObserver) OnFirstContent(c, p string) {
	for _, o := range m {
		o.OnFirstContent(c, p)
	}
}

func (m multiObserver) OnTurnEnd(c string, res *chain.Result, err error) {
	for _, o := range m {
		o.OnTurnEnd(c, res, err)
	}
}

// turnLog writes one info line per turn, whoever ran it (the front door, a
// session, a pin): the chain, the provider that answered (or last
// failed), the outcome and the trail. A trail holds names, classes, codes
// and numbers, never a message or a secret. It runs on Run's goroutine
// after the answer's last event went to the client sink, so the line costs
// no provider any time.
type turnLog struct {
	chain.NopObserver
	logger hclog.Logger
}

var _ chain.Observer = turnLog{}

func (l turnLog) OnTurnEnd(c string, res *chain.Result, err error) {
	l.logger.Info("turn", "chain", c, "provider", res.Provider, "outcome", turnOutcome(err), "trail", chain.TrailLine(res.Route, res.Trail))
}

// turnOutcome names how a turn ended, in one word for the log.
func turnOutcome(err error) string {
	var ce *chain.CommittedError
	var ee *chain.ExhaustedError
	switch {
	case err == nil:
		return "ok"
	case errors.As(err, &ce):
		return "broken" // the answer started and broke off
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return "canceled"
	case errors.As(err, &ee) && sdk.ClassOf(err) == sdk.ClassContentFilter:
		return "refused"
	case errors.As(err, &ee):
		return "exhausted"
	}
	return "error"
}
