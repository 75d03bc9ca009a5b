package main

import (
	"fmt"
	"testing"

	"github.com/axonhq/axon/sdk"
)

// BenchmarkAppend measures one keyed append_note on this machine's disk:
// an index record and an entry, each written and fsynced.
func BenchmarkAppend(b *testing.B) {
	n := &notes{}
	values := []byte(fmt.Sprintf(`{"dir":%q}`, b.TempDir()))
	if err := n.Configure(b.Context(), sdk.Config{Values: values}); err != nil {
		b.Fatal(err)
	}
	defer n.Close()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		res, err := n.Call(b.Context(), invocationKey(toolAppend, `{"title":"bench","text":"a short note of about sixty bytes, like a pet would keep"}`, fmt.Sprintf("run:%d", i)))
		if err != nil || res.IsError {
			b.Fatal(err, res.Content)
		}
	}
}
