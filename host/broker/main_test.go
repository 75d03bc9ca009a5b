package broker

import (
	"testing"

	"github.com/axonhq/axon/host/internal/testbin"
)

// binDir holds the real plugin binaries the end-to-end tests launch.
var binDir string

func TestMain(m *testing.M) {
	testbin.Main(m, &binDir,
		testbin.Target{Name: "axon-provider-openai", Pkg: "../../plugins/provider-openai"},
		testbin.Target{Name: "axon-provider-anthropic", Pkg: "../../plugins/provider-anthropic"},
		testbin.Target{Name: "axon-display-png", Pkg: "../../plugins/display-png"},
	)
}
