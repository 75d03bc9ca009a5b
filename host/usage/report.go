package usage

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// By is what a report's rows group the facts by.
type By string

const (
	ByProvider By = "provider"
	ByTier     By = "tier"
	ByChain    By = "chain"
	ByDay      By = "day"    // the local calendar day the turn began
	BySource   By = "source" // openai, anthropic (the front door), ask, session, panel, delegate
)

// ParseBy reads --by / ?by=; "" is ByProvider.
func ParseBy(s string) (By, error) {
	switch b := By(s); b {
	case "":
		return ByProvider, nil
	case ByProvider, ByTier, ByChain, ByDay, BySource:
		return b, nil
	}
	return "", fmt.Errorf("cannot group by %q: use provider, tier, chain, day or source", s)
}

// keyExpr is the SQL of a group's key. The day is SQLite's local time,
// which reads the same TZ and /etc/localtime as Go's time.Local.
func (b By) keyExpr() string {
	if b == ByDay {
		return `strftime('%Y-%m-%d', at_ms / 1000, 'unixepoch', 'localtime')`
	}
	return string(b) // a column of the same name; By is one of the constants
}

// ParseSince reads --since / ?since= relative to now: a duration back
// ("7d", "36h", "90m"), a date ("2026-11-01", local midnight) or an RFC
// 3339 time. "" is 7 days.
func ParseSince(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return now.Add(-7 * 24 * time.Hour), nil
	}
	if days, ok := strings.CutSuffix(s, "d"); ok {
		if n, err := strconv.Atoi(days); err == nil && n >= 0 {
			return now.AddDate(0, 0, -n), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	if t, err := time.ParseInLocation(time.DateOnly, s, now.Location()); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("since %q: want a duration back (7d, 36h), a date (2026-11-01) or an RFC 3339 time", s)
}

// Query selects the facts of a report: those that began in [Since, Until).
type Query struct {
	Since, Until time.Time
	By           By
}

// Report is a rollup of the facts, by one key. Sums are over the facts
// that report a value: a token sum or a spend is absent (nil) when no fact
// in the row reported one, never zero for that.
type Report struct {
	Since time.Time `json:"since"`
	Until time.Time `json:"until"`
	By    By        `json:"by"`
	Rows  []Row     `json:"rows"`  // by requests, most first; by day, oldest first
	Total Row       `json:"total"` // key "total"
}

// Row is one group of a Report.
type Row struct {
	Key      string `json:"key"` // the provider, tier, chain, day or source; "-" for none (no provider answered, no tier set)
	Requests int64  `json:"requests"`
	// Errors are turns that did not answer for a reason of axon's or its
	// providers' (exhausted, broke off, could not run); refusals and
	// callers that went away are not errors. ErrorShare is Errors/Requests.
	Errors           int64    `json:"errors"`
	ErrorShare       float64  `json:"error_share"`
	InputTokens      *int64   `json:"input_tokens,omitempty"`
	OutputTokens     *int64   `json:"output_tokens,omitempty"`
	CacheReadTokens  *int64   `json:"cache_read_tokens,omitempty"`
	CacheWriteTokens *int64   `json:"cache_write_tokens,omitempty"`
	Unreported       int64    `json:"unreported"` // answered turns whose provider reported no token count
	SpendUSD         *float64 `json:"spend_usd,omitempty"`
	Unpriced         int64    `json:"unpriced"` // turns with tokens but no known price: their spend is missing from SpendUSD
	AvoidedUSD       *float64 `json:"avoided_usd,omitempty"`
	// P50FirstTokenMS is the median time to the first streamed content;
	// absent when no turn streamed any.
	P50FirstTokenMS *float64 `json:"p50_first_token_ms,omitempty"`
}

const rollupColumns = `COUNT(*),
	SUM(outcome IN ('exhausted', 'broken', 'error')),
	SUM(input_tokens), SUM(output_tokens), SUM(cache_read_tokens), SUM(cache_write_tokens),
	SUM(provider != '' AND input_tokens IS NULL AND output_tokens IS NULL AND cache_read_tokens IS NULL AND cache_write_tokens IS NULL),
	SUM(cost_usd),
	SUM(cost_usd IS NULL AND (input_tokens IS NOT NULL OR output_tokens IS NOT NULL OR cache_read_tokens IS NOT NULL OR cache_write_tokens IS NOT NULL)),
	SUM(avoided_usd)`

// Report rolls up the facts q selects.
func (s *Store) Report(ctx context.Context, q Query) (*Report, error) {
	by, err := ParseBy(string(q.By))
	if err != nil {
		return nil, err
	}
	if err := s.ready(ctx); err != nil {
		return nil, err
	}
	if q.Until.IsZero() {
		q.Until = time.Now()
	}
	rep := &Report{Since: q.Since, Until: q.Until, By: by, Rows: []Row{}, Total: Row{Key: "total"}}
	span := []any{q.Since.UnixMilli(), q.Until.UnixMilli()}
	key := by.keyExpr()
	rows, err := s.db.QueryContext(ctx, `SELECT `+key+`, `+rollupColumns+` FROM facts WHERE at_ms >= ? AND at_ms < ? GROUP BY 1`, span...)
	if err != nil {
		return nil, fmt.Errorf("usage report: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var r Row
		if err := scanRow(rows, &r.Key, &r); err != nil {
			return nil, fmt.Errorf("usage report: %w", err)
		}
		if r.Key == "" {
			r.Key = "-"
		}
		rep.Rows = append(rep.Rows, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("usage report: %w", err)
	}
	if err := scanRow(s.db.QueryRowContext(ctx, `SELECT 'total', `+rollupColumns+` FROM facts WHERE at_ms >= ? AND at_ms < ?`, span...), &rep.Total.Key, &rep.Total); err != nil {
		return nil, fmt.Errorf("usage report: %w", err)
	}
	if err := s.medians(ctx, key, span, rep); err != nil {
		return nil, err
	}
	if by == ByDay {
		slices.SortFunc(rep.Rows, func(a, b Row) int { return strings.Compare(a.Key, b.Key) })
	} else {
		slices.SortStableFunc(rep.Rows, func(a, b Row) int {
			if a.Requests != b.Requests {
				return int(b.Requests - a.Requests)
			}
			return strings.Compare(a.Key, b.Key)
		})
	}
	return rep, nil
}

type scanner interface{ Scan(dest ...any) error }

func scanRow(sc scanner, key *string, r *Row) error {
	var errs, unreported, unpriced sql.NullInt64
	var in, out, cr, cw sql.NullInt64
	var spend, avoided sql.NullFloat64
	if err := sc.Scan(key, &r.Requests, &errs, &in, &out, &cr, &cw, &unreported, &spend, &unpriced, &avoided); err != nil {
		return err
	}
	r.Errors, r.Unreported, r.Unpriced = errs.Int64, unreported.Int64, unpriced.Int64
	if r.Requests > 0 {
		r.ErrorShare = float64(r.Errors) / float64(r.Requests)
	}
	r.InputTokens, r.OutputTokens, r.CacheReadTokens, r.CacheWriteTokens = ptr(in), ptr(out), ptr(cr), ptr(cw)
	if spend.Valid {
		r.SpendUSD = &spend.Float64
	}
	if avoided.Valid {
		r.AvoidedUSD = &avoided.Float64
	}
	return nil
}

func ptr(n sql.NullInt64) *int64 {
	if !n.Valid {
		return nil
	}
	return &n.Int64
}

// medians fills each row's and the total's median first-token latency.
// SQLite has no percentile: the latencies come back sorted by group.
func (s *Store) medians(ctx context.Context, key string, span []any, rep *Report) error {
	rows, err := s.db.QueryContext(ctx, `SELECT `+key+`, first_token_ms FROM facts
		WHERE at_ms >= ? AND at_ms < ? AND first_token_ms IS NOT NULL ORDER BY 1, 2`, span...)
	if err != nil {
		return fmt.Errorf("usage report: %w", err)
	}
	defer rows.Close()
	byKey := map[string][]float64{}
	var all []float64
	for rows.Next() {
		var k string
		var v float64
		if err := rows.Scan(&k, &v); err != nil {
			return fmt.Errorf("usage report: %w", err)
		}
		if k == "" {
			k = "-"
		}
		byKey[k] = append(byKey[k], v)
		all = append(all, v)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("usage report: %w", err)
	}
	for i := range rep.Rows {
		rep.Rows[i].P50FirstTokenMS = median(byKey[rep.Rows[i].Key])
	}
	slices.Sort(all)
	rep.Total.P50FirstTokenMS = median(all)
	return nil
}

// median of sorted values: the nearest-rank 50th percentile, nil for none.
func median(sorted []float64) *float64 {
	if len(sorted) == 0 {
		return nil
	}
	v := sorted[int(math.Ceil(0.5*float64(len(sorted))))-1]
	return &v
}
