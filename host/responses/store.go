package responses

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

	_ "modernc.org/sqlite" // the database/sql driver "sqlite"

	"github.com/axonhq/axon/host/api"
)

// FileName is the store's file in the state directory.
const FileName = "responses.db"

// DefaultRetention is how long a response is kept when the configuration
// says nothing: the Responses API's own 30 days.
const DefaultRetention = 30 * 24 * time.Hour

// pruneEvery is how often, at most, a Put also deletes expired responses.
const pruneEvery = time.Hour

// Store is a SQLite ResponseStore. It is safe for concurrent use.
type Store struct {
	path      string
	retention time.Duration
	now       func() time.Time

	mu        sync.Mutex
	db        *sql.DB // nil until first use
	lastPrune time.Time
}

var _ api.ResponseStore = (*Store)(nil)

// Open is the store at path, keeping each response for retention (<= 0:
// DefaultRetention). The directory is made and the file checked now, so a
// state directory axon cannot write is reported at start; the database
// itself opens on first use, so an idle daemon never runs SQLite.
func Open(path string, retention time.Duration) (*Store, error) {
	if retention <= 0 {
		retention = DefaultRetention
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("response store: %w", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("response store: %w", err)
	}
	f.Close()
	return &Store{path: path, retention: retention, now: time.Now}, nil
}

const schema = `CREATE TABLE IF NOT EXISTS responses (
	id         TEXT PRIMARY KEY,
	created_at INTEGER NOT NULL, -- Unix milliseconds
	response   BLOB NOT NULL,    -- the response object as the client got it
	items      BLOB NOT NULL     -- the conversation it answered, as input items
);
CREATE INDEX IF NOT EXISTS responses_created ON responses (created_at);`

// open opens the database once.
func (s *Store) open(ctx context.Context) (*sql.DB, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.db != nil {
		return s.db, nil
	}
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(5000)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(NORMAL)")
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: s.path}).EscapedPath()+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("response store %s: %w", s.path, err)
	}
	db.SetMaxOpenConns(2)
	if _, err := db.ExecContext(ctx, schema); err != nil {
		db.Close()
		return nil, fmt.Errorf("response store %s: %w", s.path, err)
	}
	s.db = db
	return db, nil
}

// Get is response id, unless it has expired.
func (s *Store) Get(ctx context.Context, id string) (api.StoredResponse, error) {
	db, err := s.open(ctx)
	if err != nil {
		return api.StoredResponse{}, err
	}
	r := api.StoredResponse{ID: id}
	var created int64
	err = db.QueryRowContext(ctx, `SELECT created_at, response, items FROM responses WHERE id = ? AND created_at >= ?`,
		id, s.now().Add(-s.retention).UnixMilli()).Scan(&created, &r.Response, &r.Items)
	if errors.Is(err, sql.ErrNoRows) {
		return api.StoredResponse{}, api.ErrResponseNotFound
	}
	if err != nil {
		return api.StoredResponse{}, fmt.Errorf("response store: %w", err)
	}
	r.CreatedAt = time.UnixMilli(created)
	return r, nil
}

// Put keeps r, and now and then deletes the responses past retention.
func (s *Store) Put(ctx context.Context, r api.StoredResponse) error {
	db, err := s.open(ctx)
	if err != nil {
		return err
	}
	if _, err := db.ExecContext(ctx, `INSERT OR REPLACE INTO responses (id, created_at, response, items) VALUES (?, ?, ?, ?)`,
		r.ID, r.CreatedAt.UnixMilli(), []byte(r.Response), []byte(r.Items)); err != nil {
		return fmt.Errorf("response store: %w", err)
	}
	return s.prune(ctx, db, false)
}

// Delete removes response id.
func (s *Store) Delete(ctx context.Context, id string) (bool, error) {
	db, err := s.open(ctx)
	if err != nil {
		return false, err
	}
	res, err := db.ExecContext(ctx, `DELETE FROM responses WHERE id = ?`, id)
	if err != nil {
		return false, fmt.Errorf("response store: %w", err)
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// Prune deletes every response past retention now.
func (s *Store) Prune(ctx context.Context) error {
	db, err := s.open(ctx)
	if err != nil {
		return err
	}
	return s.prune(ctx, db, true)
}

func (s *Store) prune(ctx context.Context, db *sql.DB, force bool) error {
	now := s.now()
	s.mu.Lock()
	due := force || now.Sub(s.lastPrune) >= pruneEvery
	if due {
		s.lastPrune = now
	}
	s.mu.Unlock()
	if !due {
		return nil
	}
	if _, err := db.ExecContext(ctx, `DELETE FROM responses WHERE created_at < ?`, now.Add(-s.retention).UnixMilli()); err != nil {
		return fmt.Errorf("response store: pruning: %w", err)
	}
	return nil
}

// Close closes the database, if it was opened.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.db == nil {
		return nil
	}
	err := s.db.Close()
	s.db = nil
	return err
}
