package main

import "github.com/axonhq/axon/sdk"

func main() { sdk.ServeTool(&fetcher{}) }
