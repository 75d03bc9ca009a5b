// Package redact removes one plugin block's secret from what crosses its
// plugin boundary: the egress applies it to upstream response headers and
// bodies before the plugin sees them (an upstream that echoes the request
// would otherwise hand the injected key to the plugin), and the supervisor
// applies it to every string a plugin returns before it reaches the chain,
// the trail, the logs, the WAL or a client.
//
// It must never let a known form of the secret through (raw, URL-encoded,
// JSON-escaped, base64 at any alignment), whatever the chunk boundaries,
// and must never hold back streamed bytes that cannot be part of it.
package redact
