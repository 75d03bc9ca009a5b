package main

import "time"

// instant is how a tool reports one point in time in one zone.
type instant struct {
	Time         string `json:"time"` // RFC 3339
	Weekday      string `json:"weekday"`
	Zone         string `json:"zone"`         // the IANA name asked for
	Abbreviation string `json:"abbreviation"` // CET, EDT, ...; may be a numeric offset
	UTCOffset    string `json:"utc_offset"`   // +01:00
}

func describe(t time.Time, loc *time.Location) instant {
	t = t.In(loc)
	abbr, _ := t.Zone()
	offset := t.Format("-07:00")
	zone := loc.String()
	if zone == "" { // a fixed offset parsed from the input
		zone = "UTC" + offset
	}
	if abbr == "" {
		abbr = zone
	}
	return instant{
		Time:         t.Format(time.RFC3339),
		Weekday:      t.Weekday().String(),
		Zone:         zone,
		Abbreviation: abbr,
		UTCOffset:    offset,
	}
}
