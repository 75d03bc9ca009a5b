package panel

import (
	"context"
	"errors"
	"sync"

	"github.com/axonhq/axon/host/chain"
)

// fakeSource is a daemon as the tests script it; it records what the
// panel asked of it.
type fakeSource struct {
	mu       sync.Mutex
	roster   Roster
	turns    []Turn
	faces    []Face
	watching chan chan Update // each Watch hands its channel here
	stats    func(since, by string) (any, error)
	path     string
	src      []byte

	tryDeltas []string
	tryRes    TryResult
	tryErr    error

	// What the panel did.
	statsCalls []string
	tries      []string // chain + "|" + prompt
	reloads    int
}

var _ Source = (*fakeSource)(nil)

func ptr[T any](v T) *T { return &v }

func newFake() *fakeSource {
	return &fakeSource{
		roster: Roster{
			Providers: []Provider{
				{Name: "ollama", Plugin: "ollama", Model: "qwen2.5:7b", Tier: "local", Sandbox: "landlock,seccomp", State: "running", Pricing: Pricing{}},
				{Name: "claude", Plugin: "anthropic", Model: "claude-sonnet-4-5", Tier: "api", GoodAt: []string{"code"}, Enabled: ptr(true),
					Gate: "paid", Credential: "env:ANTHROPIC_API_KEY", BudgetUSD: ptr(20.0), SpendUSD: ptr(1.5),
					Pricing: Pricing{Input: ptr(3.0), Output: ptr(15.0)}, Sandbox: "landlock", State: "running", LastError: "auth"},
			},
			Chains:   []Chain{{Name: "default", Providers: []string{"claude", "ollama"}, Strategy: "ordered"}},
			Displays: []Display{{Name: "eyes", Plugin: "png", Sandbox: "landlock", State: "running"}},
			Billing:  true,
			Config:   "/etc/axon/axon.hcl",
			Editable: true,
		},
		turns: []Turn{{ID: 1, Chain: "default", Source: "openai", Provider: "ollama", Outcome: "ok", Trail: "ollama#1 ok t=412ms",
			Attempts: []chain.Attempt{{Provider: "ollama", Attempt: 1, Outcome: chain.OutcomeOK}}, ElapsedMS: 412}},
		faces:     []Face{{Display: "eyes", Expression: "idle", Width: 128, Height: 64, PNG: []byte("\x89PNG fake")}},
		watching:  make(chan chan Update, 4),
		path:      "/etc/axon/axon.hcl",
		src:       []byte("provider \"ollama\" {}\n"),
		tryDeltas: []string{"Hel", "lo"},
		tryRes:    TryResult{Provider: "ollama", Model: "qwen2.5:7b", Trail: "ollama#1 ok t=10ms"},
		stats: func(since, by string) (any, error) {
			return map[string]any{"by": by, "rows": []any{}, "total": map[string]any{"key": "total", "requests": 3}}, nil
		},
	}
}

func (f *fakeSource) Roster(context.Context) Roster { return f.roster }
func (f *fakeSource) Turns() []Turn                 { return f.turns }
func (f *fakeSource) Faces() []Face                 { return f.faces }

func (f *fakeSource) Watch(ctx context.Context) <-chan Update {
	ch := make(chan Update, 4)
	f.watching <- ch
	return ch
}

func (f *fakeSource) Stats(_ context.Context, since, by string) (any, error) {
	f.mu.Lock()
	f.statsCalls = append(f.statsCalls, since+"|"+by)
	f.mu.Unlock()
	return f.stats(since, by)
}

func (f *fakeSource) Try(_ context.Context, chainName, prompt string, delta func(string)) (TryResult, error) {
	f.mu.Lock()
	f.tries = append(f.tries, chainName+"|"+prompt)
	f.mu.Unlock()
	for _, d := range f.tryDeltas {
		delta(d)
	}
	return f.tryRes, f.tryErr
}

func (f *fakeSource) Config() (string, []byte, error) { return f.path, f.src, nil }

func (f *fakeSource) Reload(context.Context) (ReloadResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reloads++
	return ReloadResult{Started: []string{"provider.claude"}, Kept: []string{"provider.ollama"}}, nil
}

func (f *fakeSource) effects() (tries []string, reloads int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.tries...), f.reloads
}

// fakeEditor records its calls and answers with outcome.
type fakeEditor struct {
	mu      sync.Mutex
	calls   []editCall
	outcome EditOutcome
	err     error
}

type editCall struct {
	Path  string
	Src   string
	Edits []EditRequest
}

var _ Editor = (*fakeEditor)(nil)

func (e *fakeEditor) Edit(_ context.Context, path string, src []byte, edits []EditRequest) (EditOutcome, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.calls = append(e.calls, editCall{path, string(src), edits})
	return e.outcome, e.err
}

func (e *fakeEditor) callCount() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.calls)
}

var errBoom = errors.New("boom")
