package main

import (
	"github.com/axonhq/axon/sdk/serve"
)

// version is stamped by the Makefile (-ldflags "-X main.version=…"); "dev" in a plain go build.
var version = "dev"

func main() { serve.Provider(&gemini{}) }
