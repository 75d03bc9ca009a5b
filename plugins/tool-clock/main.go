package main

import (
	_ "time/tzdata" // zones resolve even on a system without tzdata

	"github.com/axonhq/axon/sdk/serve"
)

func main() { serve.Tool(&clock{}) }
