// Package sse reads a text/event-stream (server-sent events), for provider
// plugins that decode a streamed reply.
//
// It parses as the WHATWG HTML standard (§9.2.6) defines the format: lines end
// in LF, CRLF or a lone CR; a leading byte order mark is dropped; a line
// starting with ':' is a comment; data lines accumulate, joined by LF; a blank
// line dispatches the event; event and id fields are kept, retry and unknown
// fields ignored. It reads only as far as the next event needs, so tokens flow
// as they arrive, copes with an event split across reads at any byte, and
// allocates only to grow its buffers, never per event.
//
// It never reconnects and never interprets the data: that is the plugin's job.
package sse
