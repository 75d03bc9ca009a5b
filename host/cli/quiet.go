package cli

import "github.com/hashicorp/go-hclog"

// hclogLevelQuiet keeps the output of `axon ask` and `axon check` to what
// the command itself says: a warning the host logs (an unset credential,
// a plugin restart) is repeated by the command's own error and hint, so
// only errors from the host and plugins still show. -v shows everything.
const hclogLevelQuiet = hclog.Error
