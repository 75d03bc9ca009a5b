package main

import (
	"encoding/json"

	"github.com/axonhq/axon/sdk"
)

func invocation(tool, input string) sdk.Invocation { return invocationKey(tool, input, "") }

func invocationKey(tool, input, key string) sdk.Invocation {
	return sdk.Invocation{CallID: "c", Name: tool, Input: json.RawMessage(input), IdempotencyKey: key}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
