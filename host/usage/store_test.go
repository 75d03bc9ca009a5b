package usage

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/axonhq/axon/hcl/config"
	"github.com/axonhq/axon/sdk"
)

func openStore(t testing.TB) (*Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "state", FileName)
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, path
}

var day0 = time.Date(2026, 11, 30, 10, 0, 0, 0, time.Local)

// facts is a small history: glm answers twice (one without usage), the
// local model once, claude once priced by the table, one exhausted turn.
func sampleFacts() []Fact {
	n := sdk.Tokens
	return []Fact{
		{At: day0, Source: SourceOpenAI, Chain: "default", Provider: "glm", Tier: config.TierSub, Model: "glm-4.6", Outcome: OutcomeOK, Attempts: 1,
			FirstToken: 300 * time.Millisecond, Total: time.Second, Tokens: sdk.Usage{InputTokens: n(1000), OutputTokens: n(200)},
			CostUSD: f(0), Basis: BasisTier, AvoidedUSD: f(0.01), Reference: DefaultReference},
		{At: day0.Add(time.Minute), Source: SourceAnthropic, Chain: "default", Provider: "glm", Tier: config.TierSub, Model: "glm-4.6", Outcome: OutcomeOK, Attempts: 2,
			FirstToken: 500 * time.Millisecond, Total: 2 * time.Second, Reference: DefaultReference},
		{At: day0.Add(2 * time.Minute), Source: SourceAsk, Chain: "default", Provider: "local", Tier: config.TierLocal, Model: "qwen2.5:3b", Outcome: OutcomeOK, Attempts: 1,
			Total: 3 * time.Second, Tokens: sdk.Usage{InputTokens: n(10), OutputTokens: n(5)}, CostUSD: f(0), Basis: BasisTier, AvoidedUSD: f(0.000175), Reference: DefaultReference},
		{At: day0.Add(24 * time.Hour), Source: SourceSession, Chain: "work", Provider: "claude", Tier: config.TierAPI, Model: "claude-sonnet-4-5", Outcome: OutcomeOK, Attempts: 1,
			FirstToken: 700 * time.Millisecond, Total: 4 * time.Second, Tokens: sdk.Usage{InputTokens: n(100), OutputTokens: n(10), CacheReadTokens: n(1000)},
			CostUSD: f(0.00075), Basis: BasisTable, AvoidedUSD: f(0.0005), Reference: DefaultReference},
		{At: day0.Add(25 * time.Hour), Source: SourceOpenAI, Chain: "work", Outcome: OutcomeExhausted, Class: sdk.ClassTransient, Attempts: 3, Total: 5 * time.Second},
	}
}

func TestReport(t *testing.T) {
	t.Parallel()
	s, _ := openStore(t)
	ctx := context.Background()
	if err := s.Write(ctx, sampleFacts()); err != nil {
		t.Fatal(err)
	}
	i := func(n int64) *int64 { return &n }
	q := Query{Since: day0.Add(-time.Hour), Until: day0.Add(48 * time.Hour)}
	glm := Row{Key: "glm", Requests: 2, InputTokens: i(1000), OutputTokens: i(200), Unreported: 1, SpendUSD: f(0), AvoidedUSD: f(0.01), P50FirstTokenMS: f(300)}
	local := Row{Key: "local", Requests: 1, InputTokens: i(10), OutputTokens: i(5), SpendUSD: f(0), AvoidedUSD: f(0.000175)}
	claude := Row{Key: "claude", Requests: 1, InputTokens: i(100), OutputTokens: i(10), CacheReadTokens: i(1000), SpendUSD: f(0.00075), AvoidedUSD: f(0.0005), P50FirstTokenMS: f(700)}
	none := Row{Key: "-", Requests: 1, Errors: 1, ErrorShare: 1}
	total := Row{Key: "total", Requests: 5, Errors: 1, ErrorShare: 0.2, InputTokens: i(1110), OutputTokens: i(215), CacheReadTokens: i(1000), Unreported: 1,
		SpendUSD: f(0.00075), AvoidedUSD: f(0.010675), P50FirstTokenMS: f(500)}
	for _, tc := range []struct {
		by   By
		rows []Row
	}{
		{ByProvider, []Row{glm, none, claude, local}}, // most requests first, then by name
		{ByChain, []Row{
			{Key: "default", Requests: 3, InputTokens: i(1010), OutputTokens: i(205), Unreported: 1, SpendUSD: f(0), AvoidedUSD: f(0.010175), P50FirstTokenMS: f(300)},
			{Key: "work", Requests: 2, Errors: 1, ErrorShare: 0.5, InputTokens: i(100), OutputTokens: i(10), CacheReadTokens: i(1000),
				SpendUSD: f(0.00075), AvoidedUSD: f(0.0005), P50FirstTokenMS: f(700)},
		}},
		{ByTier, []Row{
			{Key: "sub", Requests: 2, InputTokens: i(1000), OutputTokens: i(200), Unreported: 1, SpendUSD: f(0), AvoidedUSD: f(0.01), P50FirstTokenMS: f(300)},
			{Key: "-", Requests: 1, Errors: 1, ErrorShare: 1},
			{Key: "api", Requests: 1, InputTokens: i(100), OutputTokens: i(10), CacheReadTokens: i(1000), SpendUSD: f(0.00075), AvoidedUSD: f(0.0005), P50FirstTokenMS: f(700)},
			{Key: "local", Requests: 1, InputTokens: i(10), OutputTokens: i(5), SpendUSD: f(0), AvoidedUSD: f(0.000175)},
		}},
		{ByDay, []Row{
			{Key: day0.Format(time.DateOnly), Requests: 3, InputTokens: i(1010), OutputTokens: i(205), Unreported: 1, SpendUSD: f(0), AvoidedUSD: f(0.010175), P50FirstTokenMS: f(300)},
			{Key: day0.Add(24 * time.Hour).Format(time.DateOnly), Requests: 2, Errors: 1, ErrorShare: 0.5, InputTokens: i(100), OutputTokens: i(10), CacheReadTokens: i(1000),
				SpendUSD: f(0.00075), AvoidedUSD: f(0.0005), P50FirstTokenMS: f(700)},
		}},
	} {
		t.Run(string(tc.by), func(t *testing.T) {
			t.Parallel()
			q := q
			q.By = tc.by
			rep, err := s.Report(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.rows, rep.Rows, approx); d != "" {
				t.Errorf("rows (-want +got):\n%s", d)
			}
			if d := cmp.Diff(total, rep.Total, approx); d != "" {
				t.Errorf("total (-want +got):\n%s", d)
			}
		})
	}
}

var approx = cmp.Comparer(func(a, b float64) bool { return a == b || (a-b < 1e-12 && b-a < 1e-12) })

// A count no provider reported stays out of the JSON rather than reading 0.
func TestReportJSONLeavesAbsentSumsOut(t *testing.T) {
	t.Parallel()
	s, _ := openStore(t)
	ctx := context.Background()
	if err := s.Write(ctx, sampleFacts()[1:2]); err != nil {
		t.Fatal(err)
	}
	rep, err := s.Report(ctx, Query{Since: day0.Add(-time.Hour), Until: day0.Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(rep.Total)
	for _, absent := range []string{"input_tokens", "output_tokens", "spend_usd", "avoided_usd"} {
		if strings.Contains(string(b), absent) {
			t.Errorf("%s is in %s", absent, b)
		}
	}
	if !strings.Contains(string(b), `"unreported":1`) {
		t.Errorf("the turn without usage is not counted as unreported: %s", b)
	}
}

func TestSpendSince(t *testing.T) {
	t.Parallel()
	s, _ := openStore(t)
	ctx := context.Background()
	facts := sampleFacts()
	facts = append(facts, Fact{At: day0.Add(-40 * 24 * time.Hour), Provider: "claude", Outcome: OutcomeOK, CostUSD: f(9)})
	if err := s.Write(ctx, facts); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		provider string
		since    time.Time
		want     float64
	}{
		{"claude", MonthStart(day0), 0.00075},
		{"claude", day0.Add(-50 * 24 * time.Hour), 9.00075},
		{"claude", day0.Add(48 * time.Hour), 0},
		{"glm", MonthStart(day0), 0},
		{"nobody", MonthStart(day0), 0},
	} {
		got, err := s.SpendSince(ctx, tc.provider, tc.since)
		if err != nil || got-tc.want > 1e-12 || tc.want-got > 1e-12 {
			t.Errorf("SpendSince(%s, %s) = %v, %v; want %v", tc.provider, tc.since, got, err, tc.want)
		}
	}
}

func TestMonthStart(t *testing.T) {
	t.Parallel()
	got := MonthStart(time.Date(2026, 12, 2, 15, 4, 5, 6, time.UTC))
	if want := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC); !got.Equal(want) {
		t.Errorf("MonthStart = %v, want %v", got, want)
	}
}

// A database written at schema version 1 is brought to the current
// version with its facts intact, and from then on refuses to rewrite them.
func TestMigrationFromVersion1(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), FileName)
	v1, err := open(ctx, path, 1)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := v1.Version(ctx); v != 1 {
		t.Fatalf("version %d, want 1", v)
	}
	if err := v1.Write(ctx, sampleFacts()); err != nil {
		t.Fatal(err)
	}
	if _, err := v1.db.ExecContext(ctx, `UPDATE facts SET cost_usd = 1 WHERE provider = 'x'`); err != nil {
		t.Fatalf("version 1 has no trigger yet, the update should pass: %v", err)
	}
	v1.Close()

	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if v, _ := s.Version(ctx); v != SchemaVersion || SchemaVersion != 2 {
		t.Fatalf("version %d after Open, want %d (= 2)", v, SchemaVersion)
	}
	got, err := s.SpendSince(ctx, "claude", MonthStart(day0))
	if err != nil || got != 0.00075 {
		t.Fatalf("the version-1 facts after the upgrade: spend %v, %v", got, err)
	}
	_, err = s.db.ExecContext(ctx, `UPDATE facts SET cost_usd = 0`)
	if err == nil || !strings.Contains(err.Error(), "never rewritten") {
		t.Errorf("an update of a fact: %v, want it refused", err)
	}
	var idx int
	if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM sqlite_master WHERE type = 'index' AND name = 'facts_provider_at'`).Scan(&idx); err != nil || idx != 1 {
		t.Errorf("the budget index: %d, %v", idx, err)
	}
}

func TestNewerSchemaIsRefused(t *testing.T) {
	t.Parallel()
	s, path := openStore(t)
	if _, err := s.db.Exec(`PRAGMA user_version = 99`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	_, err := Open(context.Background(), path)
	if err == nil || !strings.Contains(err.Error(), "schema version 99 is newer") {
		t.Fatalf("Open = %v, want a refusal", err)
	}
}

func TestOpenExistingDoesNotCreate(t *testing.T) {
	t.Parallel()
	_, err := OpenExisting(context.Background(), filepath.Join(t.TempDir(), FileName))
	if err == nil || !strings.Contains(err.Error(), ErrNoStore.Error()) {
		t.Fatalf("OpenExisting = %v, want ErrNoStore", err)
	}
}

// A fact reads back as it was written: absent counts and costs stay
// absent, times to the millisecond.
func TestFactsRoundTrip(t *testing.T) {
	t.Parallel()
	s, _ := openStore(t)
	ctx := context.Background()
	want := sampleFacts()
	if err := s.Write(ctx, want); err != nil {
		t.Fatal(err)
	}
	got, err := s.Facts(ctx, Query{Since: day0.Add(-time.Hour), Until: day0.Add(48 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got, approx, cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) })); d != "" {
		t.Errorf("facts (-written +read):\n%s", d)
	}
}

// TestOpenLazily: the schema is made on first use, not at open (an idle
// daemon never runs SQLite), a first use that fails says why and the store
// stays usable for the next, and a state directory that cannot be made is
// an error at open.
func TestOpenLazily(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "state", FileName)
	s, err := OpenLazily(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var v int
	if err := s.db.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&v); err != nil || v != 0 {
		t.Fatalf("before first use: version %d, %v; want 0 (no schema yet)", v, err)
	}
	if err := s.Write(ctx, sampleFacts()); err != nil {
		t.Fatal(err)
	}
	if v, err := s.Version(ctx); v != SchemaVersion || err != nil {
		t.Fatalf("after first use: version %d, %v; want %d", v, err, SchemaVersion)
	}
	if got, err := s.Facts(ctx, Query{Since: day0.Add(-time.Hour), Until: day0.Add(48 * time.Hour)}); err != nil || len(got) != len(sampleFacts()) {
		t.Fatalf("read back %d facts, %v", len(got), err)
	}

	newer, path2 := openStore(t)
	if _, err := newer.db.Exec(`PRAGMA user_version = 99`); err != nil {
		t.Fatal(err)
	}
	newer.Close()
	lazy, err := OpenLazily(path2)
	if err != nil {
		t.Fatalf("OpenLazily reads nothing yet: %v", err)
	}
	defer lazy.Close()
	if _, err := lazy.SpendSince(ctx, "glm", day0); err == nil || !strings.Contains(err.Error(), "schema version 99 is newer") {
		t.Errorf("first use of a newer database: %v, want the refusal", err)
	}

	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenLazily(filepath.Join(file, "state", FileName)); err == nil {
		t.Error("a state directory under a file was accepted")
	}
}
