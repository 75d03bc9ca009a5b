package cli

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/axonhq/axon/sdk"
)

func newVersion(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the axon version",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			fmt.Fprintf(g.stdout, "axon %s (plugin API %s, %s, %s/%s)\n", Version, sdk.APIVersion, runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return nil
		},
	}
}
