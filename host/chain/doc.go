// Package chain runs one canonical model call through an ordered list of
// provider hops: one hop at a time, retrying transient failures on the same
// hop, falling back on the others, and recording every decision in a trail.
//
// It owns the streaming contract with the client: nothing from a hop reaches
// the client sink until that hop sends its first content event, so a hop
// that fails before then is replaced transparently; after it, a failure is
// reported as committed and never papered over by a fallback or a clean end.
//
// The package must never race hops (it multiplies spend), never latch a
// degraded state between calls (every Run tries the whole chain), never
// read or hold credentials, and never put a provider's message text into
// the trail: the trail goes into response headers and logs.
package chain
