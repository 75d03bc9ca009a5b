// Package catalog is what axon knows of the model each provider block
// serves: its context window, its largest answer, its prices, and whether
// it takes tool calls and continues a trailing assistant message
// (prefill). Each fact is merged from, in this order of precedence, the
// provider block itself, the provider plugin's Models answer, and the
// built-in tables (host/usage's price table, this package's limit table),
// and says where it came from.
//
// The plugins' answers are kept on disk (Store, <state_dir>/catalog.json)
// as the last known good, so a plugin that is down, or not started yet,
// still has the facts it last gave. A session run freezes its chain's
// entries at admission (host/session); the catalog changing later never
// changes a run already admitted.
//
// The package must never start a plugin (a caller hands it answers from
// plugins that are running), never write a credential or a base URL to
// its file (a block is known there by a digest), and never let a damaged
// file stop the host: it is ignored with a warning.
package catalog
