package egress

import (
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
)

const (
	// denyLogEvery is how often one (method, host, reason) denial is logged:
	// a plugin that loops on a refused request must not flood the log.
	denyLogEvery = 10 * time.Second
	// denyLogKeys bounds the distinct denials remembered; past it, new ones
	// share one bucket, so a plugin cycling through hosts cannot grow it.
	denyLogKeys = 256
)

type denyKey struct{ method, host, reason string }

type denyEntry struct {
	last       time.Time
	suppressed int
}

// denyLog logs a denial at most once per denyLogEvery per key, with the
// number of repeats left out since the last line. Every denial is still
// returned to the plugin; only the log is thinned.
type denyLog struct {
	logger hclog.Logger
	now    func() time.Time

	mu   sync.Mutex
	seen map[denyKey]*denyEntry
}

var overflowKey = denyKey{method: "*", host: "*", reason: "more distinct denials than are tracked"}

func (d *denyLog) log(method, host, reason string) {
	k := denyKey{method, host, reason}
	now := d.now()
	d.mu.Lock()
	e, ok := d.seen[k]
	if !ok {
		if len(d.seen) >= denyLogKeys {
			d.prune(now)
		}
		if len(d.seen) >= denyLogKeys {
			k = overflowKey
			e = d.seen[k]
		}
	}
	if e == nil {
		e = &denyEntry{}
		d.seen[k] = e
	} else if now.Sub(e.last) < denyLogEvery {
		e.suppressed++
		d.mu.Unlock()
		return
	}
	suppressed := e.suppressed
	e.last, e.suppressed = now, 0
	d.mu.Unlock()
	kv := []any{"method", k.method, "host", k.host, "reason", k.reason}
	if suppressed > 0 {
		kv = append(kv, "suppressed", suppressed)
	}
	d.logger.Warn("egress denied", kv...)
}

// prune forgets the keys whose window has passed, logging the repeats
// they still counted.
func (d *denyLog) prune(now time.Time) {
	for k, e := range d.seen {
		if now.Sub(e.last) >= denyLogEvery {
			d.report(k, e)
			delete(d.seen, k)
		}
	}
}

func (d *denyLog) report(k denyKey, e *denyEntry) {
	if e.suppressed > 0 {
		d.logger.Warn("egress denied", "method", k.method, "host", k.host, "reason", k.reason, "suppressed", e.suppressed)
		e.suppressed = 0
	}
}

// flush logs the repeats still counted, once, when the egress closes.
func (d *denyLog) flush() {
	d.mu.Lock()
	defer d.mu.Unlock()
	for k, e := range d.seen {
		d.report(k, e)
	}
}
