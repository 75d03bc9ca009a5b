package responses

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/axonhq/axon/host/api"
)

func stored(id string, at time.Time) api.StoredResponse {
	return api.StoredResponse{ID: id, CreatedAt: at, Response: json.RawMessage(`{"id":"` + id + `"}`), Items: json.RawMessage(`[{"role":"user","content":"hi"}]`)}
}

// Both stores keep, return and delete a response, and forget one past
// its retention.
func TestStores(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	file, err := Open(filepath.Join(t.TempDir(), "state", FileName), 24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { file.Close() })
	file.now = func() time.Time { return now }
	mem := NewMemory(10, 24*time.Hour)
	mem.now = file.now
	for name, st := range map[string]api.ResponseStore{"sqlite": file, "memory": mem} {
		t.Run(name, func(t *testing.T) {
			if err := st.Put(ctx, stored("resp_a", now.Add(-time.Hour))); err != nil {
				t.Fatal(err)
			}
			if err := st.Put(ctx, stored("resp_old", now.Add(-25*time.Hour))); err != nil {
				t.Fatal(err)
			}
			got, err := st.Get(ctx, "resp_a")
			if err != nil || string(got.Response) != `{"id":"resp_a"}` || string(got.Items) != `[{"role":"user","content":"hi"}]` || !got.CreatedAt.Equal(now.Add(-time.Hour)) {
				t.Fatalf("Get: %+v %v", got, err)
			}
			if _, err := st.Get(ctx, "resp_old"); !errors.Is(err, api.ErrResponseNotFound) {
				t.Errorf("a response past its retention: %v, want not found", err)
			}
			if _, err := st.Get(ctx, "resp_none"); !errors.Is(err, api.ErrResponseNotFound) {
				t.Errorf("no such response: %v", err)
			}
			if ok, err := st.Delete(ctx, "resp_a"); !ok || err != nil {
				t.Errorf("Delete: %v %v", ok, err)
			}
			if ok, _ := st.Delete(ctx, "resp_a"); ok {
				t.Errorf("Delete twice reported a response")
			}
			if _, err := st.Get(ctx, "resp_a"); !errors.Is(err, api.ErrResponseNotFound) {
				t.Errorf("after Delete: %v", err)
			}
		})
	}
}

// Expired rows are deleted from the file, not only hidden; the file
// store keeps its responses across a reopen.
func TestFileStorePrunesAndPersists(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), FileName)
	now := time.Now()
	st, err := Open(path, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	st.Put(ctx, stored("resp_old", now.Add(-2*time.Hour)))
	st.Put(ctx, stored("resp_new", now))
	if err := st.Prune(ctx); err != nil {
		t.Fatal(err)
	}
	var n int
	db, _ := st.open(ctx)
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM responses`).Scan(&n); err != nil || n != 1 {
		t.Errorf("rows after prune: %d %v, want 1", n, err)
	}
	st.Close()
	again, err := Open(path, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if _, err := again.Get(ctx, "resp_new"); err != nil {
		t.Errorf("after reopening: %v", err)
	}
}

// The memory store keeps at most its limit, dropping the oldest.
func TestMemoryStoreIsBounded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m := NewMemory(3, 0)
	for _, id := range []string{"a", "b", "c", "d"} {
		m.Put(ctx, stored(id, time.Now()))
	}
	if _, err := m.Get(ctx, "a"); !errors.Is(err, api.ErrResponseNotFound) {
		t.Errorf("the oldest of four in a store of three: %v", err)
	}
	for _, id := range []string{"b", "c", "d"} {
		if _, err := m.Get(ctx, id); err != nil {
			t.Errorf("%s: %v", id, err)
		}
	}
}

// A state directory axon cannot write is reported by Open.
func TestOpenReportsAnUnwritableDirectory(t *testing.T) {
	t.Parallel()
	if _, err := Open("/proc/axon-test/"+FileName, 0); err == nil {
		t.Fatal("Open under /proc succeeded")
	}
}
