package daemon

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
		testbin.Target{Name: "axon-provider-gemini", Pkg: "../../plugins/provider-gemini"},
		testbin.Target{Name: "axon-provider-ollama", Pkg: "../../plugins/provider-ollama"},
		testbin.Target{Name: "axon-tool-notes", Pkg: "../../plugins/tool-notes"},
		testbin.Target{Name: "axon-tool-clock", Pkg: "../../plugins/tool-clock"},
		testbin.Target{Name: "axon-tool-fetch", Pkg: "../../plugins/tool-fetch"},
		testbin.Target{Name: "axon-display-term", Pkg: "../../plugins/display-term"},
		testbin.Target{Name: "axon-display-epd", Pkg: "../../plugins/display-epd"},
	)
}
