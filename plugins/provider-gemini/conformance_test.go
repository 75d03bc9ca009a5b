package main

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/axonhq/axon/sdk"
	"github.com/axonhq/axon/sdk/sdktest"
)

// TestConformance runs the sdk provider suite over real go-plugin gRPC,
// against a stream with thoughts, text and two parallel calls (so tool
// calls and signatures cross the boundary too).
//
// Every fixture is also replayed over the boundary: the host must see
// exactly the golden outcome (events, error class, status, retry hint).
func TestConformance(t *testing.T) {
	sdktest.ProviderConformance(t, sdktest.ProviderSuite{
		New:      func() sdk.Provider { return &gemini{now: func() time.Time { return fixedNow }} },
		Config:   []byte(testConfig),
		Upstream: sdktest.LoadFixture(t, filepath.Join(localFixtures, "stream-thought-signature-then-calls.sse")),
		Request:  replayRequest(),
		Replay:   allFixtures(t),
		Golden:   func(name string) string { return golden("replay/" + name) },
	})
}
