// Command axon-tool-notes is the axon tool plugin that keeps the model's
// notes: append_note adds a timestamped entry to a Markdown file, list_notes
// and read_note show them. Every file lives in the one directory the tool
// block grants (dir).
//
// Paths never come from the model: a note is named by a conservative
// pattern (ASCII letters, digits, "_" and "-") and opened through an
// os.Root, so nothing can reach outside dir. append_note is unsafe (a repeat
// is a visible double entry); the plugin keeps a best-effort second guard
// against repeats in dir/.applied, keyed by the host's idempotency key. The
// host's write-ahead log is the real at-most-once guarantee: it never sends
// an interrupted append again.
package main
