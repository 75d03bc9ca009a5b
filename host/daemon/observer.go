package daemon

import (
	"time"

	"github.com/axonhq/axon/host/chain"
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
