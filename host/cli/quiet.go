package cli

import "github.com/hashicorp/go-hclog"

// hclogLevelQuiet keeps `axon ask` output to the answer: warnings and
// errors from the host and plugins still show.
const hclogLevelQuiet = hclog.Warn
