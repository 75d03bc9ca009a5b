package main

import (
	"github.com/axonhq/axon/sdk/serve"
)

func main() { serve.Provider(&anthropic{}) }
