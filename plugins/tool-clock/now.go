package main

import (
	"encoding/json"

	"github.com/axonhq/axon/sdk"
)

const toolNow = "now"

func nowSpec() sdk.ToolSpec {
	return sdk.ToolSpec{
		Name:        toolNow,
		Description: "Current date and time (RFC 3339), weekday and UTC offset in a time zone.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{` +
			`"zone":{"type":"string","description":"IANA time zone such as Europe/Berlin; omit for the configured default zone"}` +
			`},"additionalProperties":false}`),
		SideEffect: sdk.SideEffectNone,
	}
}

type nowInput struct {
	Zone string `json:"zone"`
}

func (c *clock) callNow(inv sdk.Invocation) sdk.ToolResult {
	var in nowInput
	if err := inv.Decode(&in); err != nil {
		return inv.Errorf("%v", err)
	}
	loc, err := c.zoneOr(in.Zone)
	if err != nil {
		return inv.Errorf("%v", err)
	}
	return inv.JSON(describe(c.now(), loc))
}
