package session

import (
	"testing"

	"github.com/axonhq/axon/host/internal/testbin"
)

// binDir holds the real binaries the crash harness runs: axon built with
// -tags failpoints, and the openai provider and notes tool plugins.
var binDir string

func TestMain(m *testing.M) {
	testbin.Main(m, &binDir,
		testbin.Target{Name: "axon", Pkg: "../cmd/axon", Tags: "failpoints"},
		testbin.Target{Name: "axon-provider-openai", Pkg: "../../plugins/provider-openai"},
		testbin.Target{Name: "axon-tool-notes", Pkg: "../../plugins/tool-notes"},
	)
}
