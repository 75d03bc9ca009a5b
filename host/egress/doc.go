// Package egress is the only code in axon that opens sockets to providers.
//
// One Service serves one plugin instance. It allows only the origins granted
// to that instance (its base_url plus an explicit allow list), removes every
// credential a plugin tried to set (Authorization, x-api-key, api-key,
// x-goog-api-key headers, key= query parameters, URL user info), injects the
// credential granted to that instance, never follows redirects, and streams
// the response body back chunk by chunk.
//
// It refuses what an allow list alone would let through: methods other than
// GET, HEAD, POST, PUT, PATCH, DELETE and OPTIONS (TRACE and TRACK echo the
// injected key, CONNECT tunnels past every check), and, checked on the
// address actually dialed so DNS rebinding cannot dodge it, loopback,
// link-local, private, unspecified and multicast destinations unless the
// matching allow entry is itself an IP literal or localhost. It uses no
// proxy, not even one from the environment: a proxy would resolve the name
// where the check cannot see it.
//
// Every request is bounded: connect, response headers, request and response
// body size, the wait for the plugin's next request body bytes, a total
// deadline covering the response stream, and the number in flight. Each
// limit ends the request with a classified spec.Error (egress_limit,
// timeout, egress_denied), never with unbounded memory or a hang. Denials
// are logged at most once per interval per (method, host, reason), with the
// count of repeats left out.
//
// Do refuses CONNECT; Service.Tunnel is the separate, checked path for
// the HTTPS proxy a plugin's child processes use. It takes a strict
// host:port, allows it only if an HTTPS request there would be allowed,
// dials through the same dialer and destination check, and then copies the
// bytes both ways untouched (TLS end to end: it injects no credential and
// inspects nothing), under the same in-flight limit, byte limits (each way)
// and total deadline.
//
// Errors returned to a plugin and log lines never contain a secret: they are
// composed here, never copied from net/http (whose errors include the full
// URL, query key and all).
package egress
