package panel

import (
	"context"
	"time"

	"github.com/axonhq/axon/host/chain"
)

// Source is the running daemon as the panel sees it: what it shows and
// the two things it may do (run a prompt, reload after an edit). The
// daemon implements it (host/daemon/panel.go); tests use a fake. Every
// method is safe for concurrent use, and none returns a credential's
// value: a credential is its reference ("env:ZAI_API_KEY") or nothing.
type Source interface {
	// Roster is every provider, chain and display as configured now.
	Roster(ctx context.Context) Roster
	// Turns are the last turns the daemon ran, oldest first, at most
	// MaxTurns of them.
	Turns() []Turn
	// Faces are the frames the displays show now, each rendered as the
	// PNG the png display writes for it.
	Faces() []Face
	// Watch sends every turn that ends and every face that changes until
	// ctx ends, then closes the channel. It never blocks the daemon: an
	// update a slow reader has no room for is dropped and counted in the
	// next Update's Lost.
	Watch(ctx context.Context) <-chan Update
	// Stats is the usage rollup GET /v1/stats answers (since and by as
	// there); an error wrapping api.ErrStatsQuery is the caller's.
	Stats(ctx context.Context, since, by string) (any, error)
	// Try runs prompt as one user message on the named chain (or pin),
	// calling delta with each piece of answer text as it streams. The
	// answer's provider and trail come back on failure too.
	Try(ctx context.Context, chain, prompt string, delta func(text string)) (TryResult, error)
	// Config is the configuration file the knobs edit: its path and its
	// bytes now. Path is "" (and the knobs are read-only) when the daemon
	// runs the built-in default or $AXON_CHAIN.
	Config() (path string, src []byte, err error)
	// Reload re-reads the configuration file and applies it as SIGHUP and
	// `axon reload` do: in-flight requests finish on the old
	// configuration, new ones see the new one, and plugins whose block
	// did not change keep running.
	Reload(ctx context.Context) (ReloadResult, error)
}

// MaxTurns is how many turns Source.Turns keeps.
const MaxTurns = 50

// Roster is the configuration as the panel lists it.
type Roster struct {
	Providers []Provider `json:"providers"`
	Chains    []Chain    `json:"chains"`
	Displays  []Display  `json:"displays"`
	Billing   bool       `json:"billing"` // axon { billing { enabled } }
	// Config is the configuration's source as axon check names it;
	// Editable says the knobs may write it (Source.Config's path is set).
	Config   string `json:"config"`
	Editable bool   `json:"editable"`
}

// Provider is one provider block, with what routing and the supervisor
// know of it now.
type Provider struct {
	Name       string   `json:"name"`
	Plugin     string   `json:"plugin"`
	Model      string   `json:"model,omitempty"`
	Tier       string   `json:"tier,omitempty"` // "local", "sub", "api"; "" unset
	GoodAt     []string `json:"good_at,omitempty"`
	Enabled    *bool    `json:"enabled,omitempty"` // nil: not written
	Gate       string   `json:"gate,omitempty"`    // "paid", "disabled"; "" when routable
	Credential string   `json:"credential,omitempty"`
	// BudgetUSD is the monthly budget (nil: none); SpendUSD the month's
	// recorded spend so far (nil: unknown, e.g. no usage store).
	BudgetUSD *float64 `json:"budget_usd_per_month,omitempty"`
	SpendUSD  *float64 `json:"spend_usd_month,omitempty"`
	Pricing   Pricing  `json:"pricing"`
	Sandbox   string   `json:"sandbox"` // the layers in force, as axon check prints them
	State     string   `json:"state"`   // plugin process: "running", "stopped", "restarting", "failed"
	// LastError is the class of the provider's last failed attempt
	// ("transient", "auth", …), "" when its last attempt answered or it
	// has none.
	LastError string `json:"last_error,omitempty"`
}

// Pricing is a provider's pricing {} block, USD per million tokens; a nil
// count is not written (the built-in table applies).
type Pricing struct {
	Input      *float64 `json:"input,omitempty"`
	Output     *float64 `json:"output,omitempty"`
	CacheRead  *float64 `json:"cache_read,omitempty"`
	CacheWrite *float64 `json:"cache_write,omitempty"`
}

// Chain is one chain block.
type Chain struct {
	Name      string   `json:"name"`
	Providers []string `json:"providers"` // in order
	Strategy  string   `json:"strategy"`
	// Classifier is the classifier gate's provider, "" when off.
	Classifier        string `json:"classifier,omitempty"`
	ClassifierTimeout string `json:"classifier_timeout,omitempty"`
}

// Display is one display block.
type Display struct {
	Name    string `json:"name"`
	Plugin  string `json:"plugin"`
	Sandbox string `json:"sandbox"`
	State   string `json:"state"`
}

// Turn is one chain run as the live view shows it.
type Turn struct {
	ID       int64     `json:"id"` // increasing
	Time     time.Time `json:"time"`
	Chain    string    `json:"chain"`
	Source   string    `json:"source"`             // "openai", "anthropic", "session", "ask", "panel"…
	Provider string    `json:"provider,omitempty"` // who answered (or last failed)
	Model    string    `json:"model,omitempty"`
	Outcome  string    `json:"outcome"` // "ok", "exhausted", "broken", "canceled", "refused", "error"
	Class    string    `json:"class,omitempty"`
	// Route is the routing decision line; Attempts the trail, in order.
	Route        string          `json:"route,omitempty"`
	Attempts     []chain.Attempt `json:"attempts"`
	Trail        string          `json:"trail"` // chain.TrailLine of both
	ElapsedMS    float64         `json:"elapsed_ms"`
	FirstTokenMS float64         `json:"first_token_ms,omitempty"`
	InputTokens  *int64          `json:"input_tokens,omitempty"`
	OutputTokens *int64          `json:"output_tokens,omitempty"`
}

// Face is what one display shows.
type Face struct {
	Display    string    `json:"display"`
	Expression string    `json:"expression"` // "idle", "thinking", "happy", "degraded", …
	Text       string    `json:"text,omitempty"`
	Width      int       `json:"width"`
	Height     int       `json:"height"`
	Updated    time.Time `json:"updated"`
	PNG        []byte    `json:"-"` // the rendered frame
}

// Update is one live event: a turn that ended or a face that changed.
type Update struct {
	Turn *Turn `json:"turn,omitempty"`
	Face *Face `json:"face,omitempty"`
	Lost int   `json:"lost,omitempty"` // updates dropped before this one
}

// TryResult is how a Try ended.
type TryResult struct {
	Provider string `json:"provider,omitempty"`
	Model    string `json:"model,omitempty"`
	Trail    string `json:"trail"`
}

// ReloadResult says what a reload applied.
type ReloadResult struct {
	// Started, Stopped and Kept name the plugin blocks a reload started
	// (new or changed), stopped (removed or changed) and kept running.
	Started []string `json:"started,omitempty"`
	Stopped []string `json:"stopped,omitempty"`
	Kept    []string `json:"kept,omitempty"`
	// Pending names what changed but applies only at the next start
	// (the listener, the state directory, …), each with why.
	Pending []string `json:"pending,omitempty"`
}
