package sdktest

import (
	"testing"

	"github.com/axonhq/axon/sdk"
)

// ReplayGolden runs generate with a Recorder as its sink, checks the
// invariants of any Generate (CheckStream) and compares the canonical
// outcome (RenderOutcome) with the golden file at path, rewriting it when
// update is set. It is the body of a replay test, whatever feeds the
// recorded bytes: a fake egress, a split reader, the plugin boundary.
func ReplayGolden(t testing.TB, path string, update bool, generate func(out sdk.Sink) error) {
	t.Helper()
	var rec Recorder
	err := generate(&rec)
	CheckStream(t, rec.Events(), err)
	Golden(t, path, RenderOutcome(t, rec.Events(), err), update)
}
