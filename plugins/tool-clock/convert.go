package main

import (
	"encoding/json"

	"github.com/axonhq/axon/sdk"
)

const toolConvert = "convert_time"

func convertSpec() sdk.ToolSpec {
	return sdk.ToolSpec{
		Name: toolConvert,
		Description: "Convert a time from one time zone to another. The time is RFC 3339 with an offset " +
			"(2026-03-01T09:00:00Z), a wall-clock date and time (2026-03-01 09:00) read in the 'from' zone, " +
			"or a time of day (09:00) on today's date in the 'from' zone.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{` +
			`"time":{"type":"string","description":"the time to convert"},` +
			`"from":{"type":"string","description":"IANA zone the time is given in; ignored when the time has an offset; omit for the configured default zone"},` +
			`"to":{"type":"string","description":"IANA zone to convert to, such as America/New_York"}` +
			`},"required":["time","to"],"additionalProperties":false}`),
		SideEffect: sdk.SideEffectNone,
	}
}

type convertInput struct {
	Time string `json:"time"`
	From string `json:"from"`
	To   string `json:"to"`
}

type convertOutput struct {
	From instant `json:"from"`
	To   instant `json:"to"`
	Note string  `json:"note,omitempty"`
}

func (c *clock) callConvert(inv sdk.Invocation) sdk.ToolResult {
	var in convertInput
	if err := inv.Decode(&in); err != nil {
		return inv.Errorf("%v", err)
	}
	if in.Time == "" || in.To == "" {
		return inv.Errorf("time and to are required")
	}
	to, err := loadZone(in.To)
	if err != nil {
		return inv.Errorf("to: %v", err)
	}
	from, err := c.zoneOr(in.From)
	if err != nil {
		return inv.Errorf("from: %v", err)
	}
	t, note, err := parseTime(in.Time, from, c.now())
	if err != nil {
		return inv.Errorf("%v", err)
	}
	return inv.JSON(convertOutput{From: describe(t, t.Location()), To: describe(t, to), Note: note})
}
