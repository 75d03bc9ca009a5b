package catalog

// Source says where a fact came from.
type Source string

const (
	SourceConfig Source = "config" // the provider block (context_window, pricing {}, prefill, its tier)
	SourcePlugin Source = "plugin" // the provider plugin: its Models answer or its Info
	SourceTable  Source = "table"  // a built-in table: prices (host/usage) or limits (this package)
)

// Price is USD per million tokens of each count; nil is unknown, never
// zero.
type Price struct {
	InputPerMTok      *float64 `json:"input_per_mtok,omitempty"`
	OutputPerMTok     *float64 `json:"output_per_mtok,omitempty"`
	CacheReadPerMTok  *float64 `json:"cache_read_per_mtok,omitempty"`
	CacheWritePerMTok *float64 `json:"cache_write_per_mtok,omitempty"`
}

// Entry is the catalog's word on the model one provider block serves. A
// zero count and a nil capability are unknown.
type Entry struct {
	Provider string // the provider block
	Model    string // the model it serves; "" when neither the block nor its plugin names one (the plugin's default)
	// ContextWindow and MaxOutputTokens are in tokens.
	ContextWindow   int64
	MaxOutputTokens int64
	Price           Price
	Tools           *bool // the model takes tool definitions and answers with tool calls
	Prefill         *bool // the provider continues a trailing assistant message
	// Sources names where each known fact came from, by fact:
	// "model", "context_window", "max_output_tokens", "price", "tools",
	// "prefill".
	Sources map[string]Source
	// Unservable, when set, says why the block cannot serve Model: its
	// plugin's last answer lists models and this one is not among them.
	Unservable string
}

func (e *Entry) from(fact string, s Source) {
	if e.Sources == nil {
		e.Sources = map[string]Source{}
	}
	e.Sources[fact] = s
}
