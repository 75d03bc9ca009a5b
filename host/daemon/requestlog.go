package daemon

import (
	"github.com/hashicorp/go-hclog"

	"github.com/axonhq/axon/host/api"
)

// requestLog is the front door's Observer: the metrics count every
// request, and a request that sent fields axon ignored is named at debug
// level with their paths (never their values), as the x-axon-ignored
// header told its client.
type requestLog struct {
	metrics *Metrics
	log     hclog.Logger
}

var _ api.Observer = requestLog{}

func (l requestLog) ObserveRequest(r api.Record) {
	l.metrics.ObserveRequest(r)
	if r.Ignored != "" && l.log.IsDebug() {
		l.log.Debug("request fields ignored", "route", r.Route, "model", r.Model, "status", r.Status, "ignored", r.Ignored)
	}
}
