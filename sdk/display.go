package sdk

import "context"

// Expression is the face a display shows.
type Expression string

// The expressions a display draws, from the turn's life cycle (host/faces
// picks one per moment of a turn).
const (
	ExprIdle     Expression = "idle"
	ExprThinking Expression = "thinking"
	ExprSpeaking Expression = "speaking"
	ExprHappy    Expression = "happy"
	ExprSad      Expression = "sad"
	ExprSleeping Expression = "sleeping"
	ExprDegraded Expression = "degraded" // "can't think right now": every provider failed
)

// Expressions lists every expression, in a stable order.
var Expressions = []Expression{ExprIdle, ExprThinking, ExprSpeaking, ExprHappy, ExprSad, ExprSleeping, ExprDegraded}

// Frame is a semantic frame: the display plugin decides how to draw it.
type Frame struct {
	Expression Expression
	Text       string
	Status     map[string]string // small facts: chain, provider, ...
}

// DisplayCaps describes a display.
type DisplayCaps struct {
	Width, Height int  // pixels; 0 for character displays
	Mono          bool // 1-bit
	// MinInterval is the shortest time between two frames the panel
	// tolerates, in milliseconds (E-Ink is slow); 0 means no limit.
	MinIntervalMS int64
}

// Display shows frames.
type Display interface {
	Plugin
	Caps(ctx context.Context) (DisplayCaps, error)
	Show(ctx context.Context, f Frame) error
	// Halt blanks or sleeps the display; the next Show wakes it.
	Halt(ctx context.Context) error
}
