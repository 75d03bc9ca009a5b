package config

import (
	"time"

	"github.com/hashicorp/hcl/v2"
)

// Responses is how long the Responses API's stored responses are kept
// (axon { responses { retention = "30d" } }): a response older than that
// cannot be continued nor read, and is deleted.
type Responses struct {
	Retention time.Duration // 0: the block is absent, host/responses' default (30 days)
	DefRange  hcl.Range
}

type rawResponses struct {
	Retention hcl.Expression `hcl:"retention,optional"`
	DefRange  hcl.Range      `hcl:",def_range"`
}

func (r *reader) responses(raw *rawResponses) Responses {
	out := Responses{DefRange: raw.DefRange}
	if !present(raw.Retention) {
		return out
	}
	s, ok := r.str(raw.Retention, "retention")
	if !ok {
		return out
	}
	d, err := ParseAge(s)
	if err != nil {
		r.errorf(raw.Retention.Range(), "Invalid duration", "%q is not an age: %v. Write a whole number of days (\"30d\") or a duration such as \"36h\" or \"1d12h\".", s, err)
		return out
	}
	out.Retention = d
	return out
}
