// Command axon is the broker host and its command line.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/axonhq/axon/host/cli"
	"github.com/axonhq/axon/host/sandbox"
)

func main() {
	// Before anything holds a key: no process of our uid may read our memory.
	if err := sandbox.HardenHost(); err != nil {
		fmt.Fprintln(os.Stderr, "axon:", err)
		os.Exit(1)
	}
	os.Exit(cli.Execute(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}
