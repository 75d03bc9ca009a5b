package sdk

import (
	"context"
	"encoding/json"
)

// ToolChoiceMode says whether and how the model must call tools.
type ToolChoiceMode string

// The tool choice modes, as both front doors' wire formats name them.
const (
	ToolChoiceAuto     ToolChoiceMode = "" // the model decides
	ToolChoiceNone     ToolChoiceMode = "none"
	ToolChoiceRequired ToolChoiceMode = "required"
	ToolChoiceTool     ToolChoiceMode = "tool" // must call ToolChoice.Name
)

// ToolChoice constrains tool use for one request.
type ToolChoice struct {
	Mode ToolChoiceMode
	Name string // with ToolChoiceTool
	// Sequential asks for at most one tool call per turn (OpenAI
	// parallel_tool_calls = false, Anthropic disable_parallel_tool_use).
	Sequential bool
}

// OutputKind says what form the answer's text must take.
type OutputKind string

// The output forms: any JSON object, or JSON matching a schema.
const (
	OutputJSON       OutputKind = "json"        // a JSON object (OpenAI json_object)
	OutputJSONSchema OutputKind = "json_schema" // JSON valid against Output.Schema
)

// Output constrains the answer's text to JSON (structured output). Both
// front doors' forms (OpenAI response_format, Anthropic output_config and
// the Responses API's text.format) become one Output.
type Output struct {
	Kind   OutputKind
	Name   string          // the schema's name, for APIs that want one
	Schema json.RawMessage // a JSON Schema object, with OutputJSONSchema
	// Strict asks that the answer be guaranteed to match Schema: the chain
	// sends the request only to a hop that can guarantee it (Info.Output)
	// and validates the answer before returning it.
	Strict bool
}

// Request is one model call in canonical form.
type Request struct {
	Model string // overrides the plugin's configured model when set
	// System is the system prompt as parts, in order, each with its own
	// cache breakpoint; a wire format with one system string joins them
	// (SystemText).
	System        []Text
	Messages      []Message
	Tools         []ToolSpec
	ToolChoice    ToolChoice
	MaxTokens     int      // 0: the plugin's default
	Temperature   *float64 // nil: provider default
	StopSequences []string
	// Output, when set, constrains the answer to JSON; nil: free text.
	Output *Output
	// Options carries plugin-specific knobs, keyed by option name.
	Options map[string]json.RawMessage
}

// EventType tags an Event.
type EventType string

const (
	EventStart          EventType = "start"           // Model: the model that answers
	EventTextDelta      EventType = "text_delta"      // Text
	EventReasoningDelta EventType = "reasoning_delta" // Text, Signature, Redacted
	EventToolCall       EventType = "tool_call"       // ToolCall and Index, complete
	// EventToolCallBegin says a tool call has begun streaming and will
	// arrive whole as an EventToolCall, unless the stream breaks first. It
	// carries nothing and never reaches a client: it tells the host that an
	// answer broken off from here cannot be continued on another provider.
	EventToolCallBegin EventType = "tool_call_begin"
	EventUsage         EventType = "usage"  // Usage
	EventFinish        EventType = "finish" // Finish and Skipped, exactly once, last
)

// FinishReason says why a model stopped.
type FinishReason string

// Why a model stopped: the end of its answer, the output limit, a turn that
// ends in tool calls, or the provider's content filter.
const (
	FinishStop          FinishReason = "stop"
	FinishLength        FinishReason = "length"
	FinishToolCalls     FinishReason = "tool_calls"
	FinishContentFilter FinishReason = "content_filter"
)

// Usage is token accounting as the provider reported it. A nil field was not
// reported: absent is never zero.
//
// The four counts are disjoint, so each can be priced on its own:
// InputTokens are prompt tokens neither read from nor written to a cache
// (Anthropic's input_tokens; OpenAI's prompt_tokens minus
// prompt_tokens_details.cached_tokens), CacheReadTokens were served from a
// cache, CacheWriteTokens were written to one.
//
// ReasoningTokens is the part of OutputTokens spent on reasoning, when the
// provider reports it.
type Usage struct {
	InputTokens      *int64
	OutputTokens     *int64
	CacheReadTokens  *int64
	CacheWriteTokens *int64
	ReasoningTokens  *int64
}

// Tokens returns a pointer to n, for filling Usage.
func Tokens(n int64) *int64 { return &n }

// Event is one element of a Generate stream.
type Event struct {
	Type      EventType
	Text      string
	Signature string    // reasoning signature; ends the current reasoning block
	Redacted  string    // redacted reasoning data; a block of its own
	ToolCall  *ToolCall // complete: the plugin assembles argument fragments itself
	Index     int       // tool call index within the turn: stable and distinct
	Usage     *Usage
	Finish    FinishReason
	Model     string
	// Skipped, on EventFinish, counts the upstream stream events the
	// plugin could not decode and passed over (sdk.Stream.Skip): the
	// answer is complete, since its terminal event arrived, but the
	// upstream sent something it should not have.
	Skipped int
}

// Sink receives the events of one Generate call.
type Sink interface {
	Send(ctx context.Context, ev Event) error
}

// BatchSink is a Sink that also takes several events in one call: events
// that were already waiting together (a plugin's events that arrived in one
// message). It handles them as it would one Send each, in order, stopping
// at the first it refuses, but may write them out together: one flush to a
// client instead of one per event. evs is the caller's again when
// SendBatch returns. It is optional, found by type assertion: SendBatch
// sends to any Sink.
type BatchSink interface {
	Sink
	SendBatch(ctx context.Context, evs []Event) error
}

// SendBatch sends evs to out in order: in one call when out is a
// BatchSink, else one Send each, stopping at the first error.
func SendBatch(ctx context.Context, out Sink, evs []Event) error {
	if b, ok := out.(BatchSink); ok {
		return b.SendBatch(ctx, evs)
	}
	for _, ev := range evs {
		if err := out.Send(ctx, ev); err != nil {
			return err
		}
	}
	return nil
}

// SinkFunc adapts a function to Sink.
type SinkFunc func(ctx context.Context, ev Event) error

// Send calls f.
func (f SinkFunc) Send(ctx context.Context, ev Event) error { return f(ctx, ev) }

// ModelLister is implemented by a provider that can say which models it
// serves and their limits (its configured model, or the upstream's
// catalog). It is optional, found by type assertion: a provider without it
// answers the host's question with no models, and the host falls back to
// the configuration's facts.
type ModelLister interface {
	Models(ctx context.Context) ([]Model, error)
}

// Model describes a model a provider serves.
type Model struct {
	ID              string
	ContextWindow   int64
	MaxOutputTokens int64
}

// Provider adapts one model wire format.
type Provider interface {
	Plugin
	// Generate streams the answer to req into out. On success the last event
	// sent is EventFinish. On failure it returns an *Error with a class.
	Generate(ctx context.Context, req *Request, out Sink) error
}
