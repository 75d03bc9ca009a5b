package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"

	"github.com/axonhq/axon/sdk"
)

// decodeEvents runs the stream decoder of api over body and collects the
// result.
func decodeEvents(t *testing.T, api string, body []byte, oneByte bool) ([]sdk.Event, error) {
	t.Helper()
	var events []sdk.Event
	sink := sdk.SinkFunc(func(_ context.Context, ev sdk.Event) error {
		events = append(events, ev)
		return nil
	})
	r := bytes.NewReader(body)
	tn := newTurn(sink, "test-model", []byte("{}"))
	var err error
	decode := wireFor(api).decodeStream
	if oneByte {
		err = decode(context.Background(), iotest.OneByteReader(r), tn)
	} else {
		err = decode(context.Background(), r, tn)
	}
	return events, err
}

// TestStreamSplitAtEveryByte decodes every recorded stream one byte per
// read, as a slow network would deliver it, and requires the same result
// as reading it whole.
func TestStreamSplitAtEveryByte(t *testing.T) {
	t.Parallel()
	type stream struct{ path, api string }
	var files []stream
	apis := map[string]int{}
	for _, root := range []string{sharedFixtures, ownFixtures} {
		for _, rel := range bodyFiles(t, root) {
			if r, ok := ruleFor(rel); root == sharedFixtures && (!ok || !r.replay) {
				continue
			}
			if strings.HasSuffix(rel, ".sse") {
				api := fixtureAPI(root, rel)
				files = append(files, stream{filepath.Join(root, rel), api})
				apis[api]++
			}
		}
	}
	if apis[apiChat] < 10 || apis[apiResponses] < 5 {
		t.Fatalf("too few streams found: %v", apis)
	}
	for _, f := range files {
		t.Run(f.path, func(t *testing.T) {
			t.Parallel()
			body, err := os.ReadFile(f.path)
			if err != nil {
				t.Fatal(err)
			}
			wantEv, wantErr := decodeEvents(t, f.api, body, false)
			gotEv, gotErr := decodeEvents(t, f.api, body, true)
			if diff := cmp.Diff(wantEv, gotEv); diff != "" {
				t.Errorf("events differ (-whole +one byte):\n%s", diff)
			}
			if diff := cmp.Diff(summarize(wantErr), summarize(gotErr)); diff != "" {
				t.Errorf("errors differ (-whole +one byte):\n%s", diff)
			}
		})
	}
}
