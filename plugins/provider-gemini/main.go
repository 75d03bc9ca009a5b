package main

import "github.com/axonhq/axon/sdk"

func main() { sdk.ServeProvider(&gemini{}) }
