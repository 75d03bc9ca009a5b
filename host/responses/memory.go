package responses

import (
	"container/list"
	"context"
	"sync"
	"time"

	"github.com/axonhq/axon/host/api"
)

// DefaultMemoryLimit is how many responses a Memory store keeps.
const DefaultMemoryLimit = 1000

// Memory is a ResponseStore for an axon without a state directory: the
// last limit responses, each for retention, lost when axon stops.
type Memory struct {
	limit     int
	retention time.Duration
	now       func() time.Time

	mu    sync.Mutex
	order *list.List // of ids, oldest first
	byID  map[string]memEntry
}

type memEntry struct {
	r   api.StoredResponse
	pos *list.Element
}

var _ api.ResponseStore = (*Memory)(nil)

// NewMemory keeps at most limit responses (<= 0: DefaultMemoryLimit) for
// retention (<= 0: DefaultRetention).
func NewMemory(limit int, retention time.Duration) *Memory {
	if limit <= 0 {
		limit = DefaultMemoryLimit
	}
	if retention <= 0 {
		retention = DefaultRetention
	}
	return &Memory{limit: limit, retention: retention, now: time.Now, order: list.New(), byID: map[string]memEntry{}}
}

func (m *Memory) Get(_ context.Context, id string) (api.StoredResponse, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.byID[id]
	if !ok || m.now().Sub(e.r.CreatedAt) > m.retention {
		return api.StoredResponse{}, api.ErrResponseNotFound
	}
	return e.r, nil
}

func (m *Memory) Put(_ context.Context, r api.StoredResponse) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.remove(r.ID)
	m.byID[r.ID] = memEntry{r: r, pos: m.order.PushBack(r.ID)}
	for m.order.Len() > m.limit {
		m.remove(m.order.Front().Value.(string))
	}
	return nil
}

func (m *Memory) Delete(_ context.Context, id string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, ok := m.byID[id]
	m.remove(id)
	return ok, nil
}

func (m *Memory) remove(id string) {
	if e, ok := m.byID[id]; ok {
		m.order.Remove(e.pos)
		delete(m.byID, id)
	}
}
