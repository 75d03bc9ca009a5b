package main

import (
	_ "time/tzdata" // zones resolve even on a system without tzdata

	"github.com/axonhq/axon/sdk/serve"
)

// version is stamped by the Makefile (-ldflags "-X main.version=…"); "dev" in a plain go build.
var version = "dev"

func main() { serve.Tool(&clock{}) }
