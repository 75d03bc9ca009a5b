package cli

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/axonhq/axon/sdk"
)

// Version is stamped by the Makefile (-ldflags "-X …/host/cli.Version=…");
// "dev" in a plain go build.
var Version = "dev"

// Commit is the commit axon was built from, stamped with Version by the
// Makefile (-ldflags "-X .../host/cli.Commit=…"); "unknown" in a plain go build.
var Commit = "unknown"

func newVersion(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the axon version",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			fmt.Fprintf(g.stdout, "axon %s (commit %s, plugin API %s, %s, %s/%s)\n", Version, Commit, sdk.APIVersion, runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return nil
		},
	}
}
