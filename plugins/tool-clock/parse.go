package main

import (
	"fmt"
	"slices"
	"time"
)

// wallLayouts are the accepted forms of a wall-clock time without an offset.
// Those without a date mean today in the source zone.
var wallLayouts = []struct {
	layout  string
	hasDate bool
}{
	{"2006-01-02T15:04:05", true},
	{"2006-01-02T15:04", true},
	{"2006-01-02 15:04:05", true},
	{"2006-01-02 15:04", true},
	{"15:04:05", false},
	{"15:04", false},
}

// parseTime reads s as an absolute RFC 3339 time (shown in from when from
// has that offset at that instant, else in the offset given), or as a
// wall-clock time in from. now supplies today's date for a bare time of day. note
// explains an ambiguous wall time.
func parseTime(s string, from *time.Location, now time.Time) (t time.Time, note string, err error) {
	// ParseInLocation keeps from when its offset matches, else a fixed zone.
	if abs, err := time.ParseInLocation(time.RFC3339, s, from); err == nil {
		return abs, "", nil
	}
	for _, l := range wallLayouts {
		w, err := time.Parse(l.layout, s)
		if err != nil {
			continue
		}
		if !l.hasDate {
			y, m, d := now.In(from).Date()
			w = time.Date(y, m, d, w.Hour(), w.Minute(), w.Second(), 0, time.UTC)
		}
		return resolveWall(w, from)
	}
	return time.Time{}, "", fmt.Errorf("cannot read time %q: use RFC 3339 (2026-03-01T09:00:00Z), \"2026-03-01 09:00\" or \"09:00\"", s)
}

// resolveWall finds the instants whose wall clock in loc reads w (w's fields,
// its location ignored). Around a daylight-saving change a wall time can
// exist twice (clocks go back: the earlier is returned, with a note) or not
// at all (clocks go forward: an error). time.Date alone would pick one
// silently.
func resolveWall(w time.Time, loc *time.Location) (time.Time, string, error) {
	naive := time.Date(w.Year(), w.Month(), w.Day(), w.Hour(), w.Minute(), w.Second(), 0, time.UTC)
	var found []time.Time
	// The offsets in force a day either side cover any single transition.
	for _, probe := range []time.Time{naive.Add(-24 * time.Hour), naive, naive.Add(24 * time.Hour)} {
		_, off := probe.In(loc).Zone()
		t := naive.Add(-time.Duration(off) * time.Second).In(loc)
		if sameWall(t, naive) && !slices.ContainsFunc(found, t.Equal) {
			found = append(found, t)
		}
	}
	slices.SortFunc(found, func(a, b time.Time) int { return a.Compare(b) })
	wall := naive.Format("2006-01-02 15:04:05")
	switch len(found) {
	case 0:
		return time.Time{}, "", fmt.Errorf("%s does not exist in %s: the clocks skip it for daylight saving", wall, loc)
	case 1:
		return found[0], "", nil
	}
	first, second := found[0], found[1]
	return first, fmt.Sprintf("%s happens twice in %s (clocks go back): converted the first, %s; the second is %s",
		wall, loc, first.Format(time.RFC3339), second.Format(time.RFC3339)), nil
}

func sameWall(t, naive time.Time) bool {
	y, m, d := t.Date()
	ny, nm, nd := naive.Date()
	return y == ny && m == nm && d == nd && t.Hour() == naive.Hour() && t.Minute() == naive.Minute() && t.Second() == naive.Second()
}
