// Command axon is the broker host and its command line.
package main

import (
	"context"
	"os"

	"github.com/axonhq/axon/host/cli"
)

func main() {
	os.Exit(cli.Execute(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}
