package config

import (
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
)

// Archive is the opt-in schedule that moves old session logs into sealed
// containers (axon { archive { after = "30d" } }): axon serve archives,
// at start and every hour, the logs of sessions with no open run that no
// axon holds and that were last written at least After ago.
type Archive struct {
	After    time.Duration // 0: the block is absent, nothing is archived on a schedule
	DefRange hcl.Range
}

type rawArchive struct {
	After    hcl.Expression `hcl:"after"`
	DefRange hcl.Range      `hcl:",def_range"`
}

func (r *reader) archive(raw *rawArchive) Archive {
	a := Archive{DefRange: raw.DefRange}
	if !r.required(raw.After, "after", raw.DefRange, `after = "30d"`) {
		return a
	}
	s, ok := r.str(raw.After, "after")
	if !ok {
		return a
	}
	d, err := ParseAge(s)
	if err != nil {
		r.errorf(raw.After.Range(), "Invalid duration", "%q is not an age: %v. Write a whole number of days (\"30d\") or a duration such as \"36h\" or \"1d12h\".", s, err)
		return a
	}
	a.After = d
	return a
}

// ParseAge reads an age such as "30d", "1d12h" or "90m": Go's durations
// with a leading whole number of days. It must be greater than zero.
func ParseAge(s string) (time.Duration, error) {
	var d time.Duration
	rest := s
	if i := strings.IndexByte(s, 'd'); i > 0 {
		n, err := strconv.ParseUint(s[:i], 10, 16)
		if err != nil {
			return 0, errors.New("days must be a whole number")
		}
		d, rest = time.Duration(n)*24*time.Hour, s[i+1:]
	}
	if rest != "" {
		x, err := time.ParseDuration(rest)
		if err != nil {
			return 0, errors.New("want a number with a unit (d, h, m, s)")
		}
		if x < 0 {
			return 0, errors.New("it must be greater than zero")
		}
		d += x
	}
	if d <= 0 {
		return 0, errors.New("it must be greater than zero")
	}
	return d, nil
}
