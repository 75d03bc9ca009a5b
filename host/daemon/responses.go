package daemon

import (
	"path/filepath"

	"github.com/hashicorp/go-hclog"

	"github.com/axonhq/axon/hcl/config"
	"github.com/axonhq/axon/host/api"
	"github.com/axonhq/axon/host/responses"
)

// responseStore is where the Responses API keeps responses: a SQLite file
// in the state directory (opened on first use), or, without one, the last
// responses in memory. A file that cannot be made is logged, and axon
// serves the Responses API without keeping responses (previous_response_id
// is refused saying so).
func responseStore(cfg *config.Config, logger hclog.Logger) (api.ResponseStore, func()) {
	retention := cfg.Axon.Responses.Retention
	if cfg.Axon.StateDir == "" {
		return responses.NewMemory(0, retention), func() {}
	}
	st, err := responses.Open(filepath.Join(cfg.Axon.StateDir, responses.FileName), retention)
	if err != nil {
		logger.Error("stored responses (POST /v1/responses with store) will not be kept", "error", err)
		return nil, func() {}
	}
	return st, func() { st.Close() }
}
