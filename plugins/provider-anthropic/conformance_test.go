package main

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/axonhq/axon/sdk"
	"github.com/axonhq/axon/sdk/sdktest"
)

// TestConformance runs the sdk provider suite over real go-plugin gRPC,
// against a recorded tool-use stream (so tool calls cross the boundary too).
func TestConformance(t *testing.T) {
	sdktest.ProviderConformance(t, sdktest.ProviderSuite{
		New:      func() sdk.Provider { return &anthropic{} },
		Config:   []byte(testConfig),
		Upstream: sdktest.LoadFixture(t, filepath.Join(localFixtures, "stream-interleaved-tool-blocks.sse")),
		Request:  replayRequest(),
	})
}

// TestReplayOverPluginBoundary replays every fixture through the plugin
// served over go-plugin gRPC and checks that the host sees exactly the
// golden outcome: events, error class, status and retry hint survive the
// boundary, and nothing else is added.
func TestReplayOverPluginBoundary(t *testing.T) {
	t.Parallel()
	for _, f := range allFixtures(t) {
		t.Run(f.Name, func(t *testing.T) {
			t.Parallel()
			p := sdktest.Serve(t, sdk.KindProvider, &anthropic{now: func() time.Time { return fixedNow }}, []byte(testConfig), sdktest.NewFakeEgress(t, f)).Provider(t)
			var rec sdktest.Recorder
			err := p.Generate(context.Background(), replayRequest(), &rec)
			sdktest.Golden(t, golden("replay/"+f.Name), sdktest.RenderOutcome(t, rec.Events(), err), false)
		})
	}
}
