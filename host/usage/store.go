package usage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/axonhq/axon/hcl/config"
	"github.com/axonhq/axon/sdk"

	_ "modernc.org/sqlite" // the pure-Go SQLite driver "sqlite": CGO_ENABLED=0 builds keep working
)

// FileName is the store's file in the state directory.
const FileName = "usage.db"

// Path is where the store of stateDir lives.
func Path(stateDir string) string { return filepath.Join(stateDir, FileName) }

// Store is the usage database. Facts are only ever inserted; every rollup
// is a query over them. Several processes may share one file (axon serve,
// axon ask, axon stats): SQLite locks it, writers wait for each other.
type Store struct {
	db *sql.DB

	// Set by OpenLazily: the schema is brought up to version on first use.
	mu      sync.Mutex
	pending bool
	version int
}

// Writer takes batches of facts; *Store is the one axon uses.
type Writer interface {
	Write(ctx context.Context, facts []Fact) error
}

var _ Writer = (*Store)(nil)

// migrations are the schema versions in order: migrations[i] takes the
// database from version i to i+1 (PRAGMA user_version). A released
// migration is never edited; a change is a new one.
var migrations = [][]string{
	// 1: the facts, and the index every rollup's time range uses.
	{`CREATE TABLE facts (
		id                 INTEGER PRIMARY KEY,
		at_ms              INTEGER NOT NULL, -- when the turn began, Unix milliseconds
		source             TEXT    NOT NULL,
		chain              TEXT    NOT NULL,
		provider           TEXT    NOT NULL, -- '' when no provider answered
		tier               TEXT    NOT NULL,
		model              TEXT    NOT NULL,
		outcome            TEXT    NOT NULL,
		class              TEXT    NOT NULL,
		attempts           INTEGER NOT NULL,
		first_token_ms     REAL,             -- NULL: no content reached the client as a stream
		total_ms           REAL    NOT NULL,
		input_tokens       INTEGER,          -- NULL: not reported, never 0 for that
		output_tokens      INTEGER,
		cache_read_tokens  INTEGER,
		cache_write_tokens INTEGER,
		estimated          INTEGER NOT NULL, -- 1: the counts are estimates
		cost_usd           REAL,             -- NULL: unknown
		cost_basis         TEXT    NOT NULL,
		avoided_usd        REAL,             -- NULL: unknown
		reference          TEXT    NOT NULL
	)`,
		`CREATE INDEX facts_at ON facts (at_ms)`},
	// 2: budgets ask one provider's spend since a time; and a fact, once
	// written, is never rewritten.
	{`CREATE INDEX facts_provider_at ON facts (provider, at_ms)`,
		`CREATE TRIGGER facts_never_rewritten BEFORE UPDATE ON facts
		BEGIN SELECT RAISE(ABORT, 'usage facts are never rewritten'); END`},
}

// SchemaVersion is the version Open brings a database to.
var SchemaVersion = len(migrations)

// Open opens (creating it and its directory when missing) the store at
// path and brings its schema to SchemaVersion. A database of a newer
// axon is refused rather than misread.
func Open(ctx context.Context, path string) (*Store, error) {
	return open(ctx, path, len(migrations))
}

// OpenLazily is Open with the database itself opened on first use: an
// idle daemon never runs (or pages in) SQLite's code, which is 3.5 MB of
// resident memory once the store is opened. The directory is made and the
// file checked here, so a state directory axon cannot write is still
// reported at start; a failure of the deferred open is the error of the
// first call, and the next call tries again.
func OpenLazily(path string) (*Store, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("usage store: %w", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("usage store: %w", err)
	}
	f.Close()
	db, err := sqlOpen(path)
	if err != nil {
		return nil, err
	}
	return &Store{db: db, pending: true, version: len(migrations)}, nil
}

// ready brings a lazily opened store's schema up to date, once.
func (s *Store) ready(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.pending {
		return nil
	}
	if err := s.migrate(ctx, s.version); err != nil {
		return fmt.Errorf("usage store: %w", err)
	}
	s.pending = false
	return nil
}

func sqlOpen(path string) (*sql.DB, error) {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(5000)") // another process's write: wait, do not fail
	q.Add("_pragma", "journal_mode(WAL)")  // readers (axon stats) never block the writer
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Set("_txlock", "immediate") // a transaction takes the write lock first: no deadlock upgrading it
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("usage store %s: %w", path, err)
	}
	db.SetMaxOpenConns(2) // the writer and one reader
	return db, nil
}

func open(ctx context.Context, path string, version int) (*Store, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("usage store: %w", err)
	}
	db, err := sqlOpen(path)
	if err != nil {
		return nil, err
	}
	s := &Store{db: db}
	if err := s.migrate(ctx, version); err != nil {
		db.Close()
		return nil, fmt.Errorf("usage store %s: %w", path, err)
	}
	return s, nil
}

// migrate applies the migrations after the database's version up to
// version, each in a transaction with its version number, so a crash
// leaves a database at one version or the next, never between.
func (s *Store) migrate(ctx context.Context, version int) error {
	for {
		done, err := s.step(ctx, version)
		if err != nil || done {
			return err
		}
	}
}

// step applies one migration; done reports that none was left.
func (s *Store) step(ctx context.Context, version int) (done bool, err error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return false, err
	}
	defer tx.Rollback()
	var v int
	if err := tx.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&v); err != nil {
		return false, err
	}
	switch {
	case v > len(migrations):
		return false, fmt.Errorf("schema version %d is newer than this axon's %d; upgrade axon", v, len(migrations))
	case v >= version:
		return true, nil
	}
	for _, stmt := range migrations[v] {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return false, fmt.Errorf("migration to version %d: %w", v+1, err)
		}
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA user_version = %d`, v+1)); err != nil {
		return false, err
	}
	return false, tx.Commit()
}

// Version is the database's schema version.
func (s *Store) Version(ctx context.Context) (int, error) {
	if err := s.ready(ctx); err != nil {
		return 0, err
	}
	var v int
	err := s.db.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&v)
	return v, err
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

const insertFact = `INSERT INTO facts (at_ms, source, chain, provider, tier, model, outcome, class, attempts,
	first_token_ms, total_ms, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens,
	estimated, cost_usd, cost_basis, avoided_usd, reference)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

// Write inserts facts in one transaction: all of them, or none.
func (s *Store) Write(ctx context.Context, facts []Fact) error {
	if len(facts) == 0 {
		return nil
	}
	if err := s.ready(ctx); err != nil {
		return err
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	stmt, err := tx.PrepareContext(ctx, insertFact)
	if err != nil {
		return err
	}
	defer stmt.Close()
	for i := range facts {
		f := &facts[i]
		var first any
		if f.FirstToken > 0 {
			first = ms(f.FirstToken)
		}
		_, err := stmt.ExecContext(ctx, f.At.UnixMilli(), string(f.Source), f.Chain, f.Provider, string(f.Tier), f.Model,
			string(f.Outcome), string(f.Class), f.Attempts, first, ms(f.Total),
			f.Tokens.InputTokens, f.Tokens.OutputTokens, f.Tokens.CacheReadTokens, f.Tokens.CacheWriteTokens,
			f.Estimated, f.CostUSD, string(f.Basis), f.AvoidedUSD, f.Reference)
		if err != nil {
			return err
		}
	}
	return tx.Commit()
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// SpendSince is the USD the facts of provider (a provider block name)
// that began at or after since cost, summed over those with a known cost:
// what a budget has spent. It reads the facts written so far; the
// Recorder's queue writes them within a second or so.
func (s *Store) SpendSince(ctx context.Context, provider string, since time.Time) (float64, error) {
	if err := s.ready(ctx); err != nil {
		return 0, err
	}
	var usd sql.NullFloat64
	err := s.db.QueryRowContext(ctx, `SELECT SUM(cost_usd) FROM facts WHERE provider = ? AND at_ms >= ?`,
		provider, since.UnixMilli()).Scan(&usd)
	if err != nil {
		return 0, fmt.Errorf("usage store: %w", err)
	}
	return usd.Float64, nil
}

// MonthStart is the first instant of t's calendar month, in t's location:
// where a monthly budget's spend begins.
func MonthStart(t time.Time) time.Time {
	y, m, _ := t.Date()
	return time.Date(y, m, 1, 0, 0, 0, 0, t.Location())
}

// ErrNoStore: there is no usage database yet (nothing was ever recorded).
var ErrNoStore = errors.New("no usage recorded yet")

// OpenExisting opens the store at path only when it exists (ErrNoStore
// otherwise), for a reader that must not create one.
func OpenExisting(ctx context.Context, path string) (*Store, error) {
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", path, ErrNoStore)
	}
	return Open(ctx, path)
}

// Facts reads back the facts that began in [q.Since, q.Until), oldest
// first (q.By is ignored): the records themselves, for an export or a
// test.
func (s *Store) Facts(ctx context.Context, q Query) ([]Fact, error) {
	if err := s.ready(ctx); err != nil {
		return nil, err
	}
	if q.Until.IsZero() {
		q.Until = time.Now()
	}
	rows, err := s.db.QueryContext(ctx, `SELECT at_ms, source, chain, provider, tier, model, outcome, class, attempts,
		first_token_ms, total_ms, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens,
		estimated, cost_usd, cost_basis, avoided_usd, reference
		FROM facts WHERE at_ms >= ? AND at_ms < ? ORDER BY at_ms, id`, q.Since.UnixMilli(), q.Until.UnixMilli())
	if err != nil {
		return nil, fmt.Errorf("usage store: %w", err)
	}
	defer rows.Close()
	var out []Fact
	for rows.Next() {
		var f Fact
		var at int64
		var first sql.NullFloat64
		var total float64
		var in, outTok, cr, cw sql.NullInt64
		var cost, avoided sql.NullFloat64
		var src, tier, outcome, class, basis string
		if err := rows.Scan(&at, &src, &f.Chain, &f.Provider, &tier, &f.Model, &outcome, &class, &f.Attempts,
			&first, &total, &in, &outTok, &cr, &cw, &f.Estimated, &cost, &basis, &avoided, &f.Reference); err != nil {
			return nil, fmt.Errorf("usage store: %w", err)
		}
		f.At = time.UnixMilli(at)
		f.Source, f.Tier, f.Outcome, f.Class, f.Basis = Source(src), config.Tier(tier), Outcome(outcome), sdk.Class(class), Basis(basis)
		f.FirstToken, f.Total = fromMS(first.Float64), fromMS(total)
		f.Tokens = sdk.Usage{InputTokens: ptr(in), OutputTokens: ptr(outTok), CacheReadTokens: ptr(cr), CacheWriteTokens: ptr(cw)}
		if cost.Valid {
			f.CostUSD = &cost.Float64
		}
		if avoided.Valid {
			f.AvoidedUSD = &avoided.Float64
		}
		out = append(out, f)
	}
	return out, rows.Err()
}

func fromMS(ms float64) time.Duration { return time.Duration(ms * float64(time.Millisecond)) }
