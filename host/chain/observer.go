package chain

// Observer is told about a Run as it happens, for displays (thinking,
// speaking, degraded faces) and metrics. Run calls it synchronously, on its
// own goroutine except for OnFirstContent, which runs on the goroutine the
// provider sends on just before the first content reaches the client (on a
// Buffered Run: on Run's own, once the answer is complete). An
// implementation must return at once and never block: hand the news to a
// channel or an atomic, never to I/O.
//
// Embed NopObserver to implement only the methods you need.
type Observer interface {
	// OnTurnStart: a Run begins.
	OnTurnStart(chain string)
	// OnHop: one attempt ended (or a hop was skipped) and the chain decided
	// what to do next; a.Outcome says what.
	OnHop(chain string, a Attempt)
	// OnFirstContent: provider's answer is about to reach the client; from
	// here on the chain can no longer fall back.
	OnFirstContent(chain, provider string)
	// OnTurnEnd: Run is about to return res and err. An *ExhaustedError
	// means the chain could not answer (show degraded) unless its class is
	// content_filter, which is a refusal, not an outage. Nothing is
	// latched: the next Run tries every hop again.
	OnTurnEnd(chain string, res *Result, err error)
}

// NopObserver ignores everything; embed it to implement part of Observer.
type NopObserver struct{}

var _ Observer = NopObserver{}

func (NopObserver) OnTurnStart(string)               {}
func (NopObserver) OnHop(string, Attempt)            {}
func (NopObserver) OnFirstContent(string, string)    {}
func (NopObserver) OnTurnEnd(string, *Result, error) {}
