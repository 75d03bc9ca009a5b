package main

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/axonhq/axon/sdk"
)

// defaultZone is the system's zone: on a Pi that is what `date` shows.
const defaultZone = "Local"

// config is the plugin-owned part of a tool block.
type config struct {
	Zone string `json:"zone"`
}

// schema declares the attributes above to the host.
func schema() sdk.Schema {
	return sdk.Schema{Attributes: []sdk.Attribute{
		{Name: "zone", Type: "string", Default: json.RawMessage(`"` + defaultZone + `"`),
			Description: `IANA time zone used when a call names none, e.g. "Europe/Berlin"; "Local" is the system's zone, "UTC" is UTC.`},
	}}
}

// parseConfig decodes the plugin-owned values and resolves the zone.
func parseConfig(cfg sdk.Config) (*time.Location, error) {
	c := config{Zone: defaultZone}
	if err := cfg.Decode(&c); err != nil {
		return nil, err
	}
	if c.Zone == "" {
		c.Zone = defaultZone
	}
	loc, err := loadZone(c.Zone)
	if err != nil {
		return nil, sdk.Permanentf("zone: %v", err)
	}
	return loc, nil
}

// loadZone resolves an IANA zone name. Unlike time.LoadLocation it refuses
// the empty name (which LoadLocation reads as UTC) so a blank argument is a
// mistake the caller hears about.
func loadZone(name string) (*time.Location, error) {
	if name == "" {
		return nil, fmt.Errorf("empty zone name")
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, fmt.Errorf("unknown time zone %q: use an IANA name such as \"Europe/Berlin\", \"America/New_York\" or \"UTC\"", name)
	}
	return loc, nil
}
