// Package egress is the only code in axon that opens sockets to providers.
//
// One Service serves one plugin instance. It allows only the origins granted
// to that instance (its base_url plus an explicit allow list), removes every
// credential a plugin tried to set (Authorization, x-api-key, api-key,
// x-goog-api-key headers, key= query parameters, URL user info), injects the
// credential granted to that instance, never follows redirects, bounds
// connect, response-header and body size, and streams the response body
// back chunk by chunk. Errors returned to a plugin and log lines never
// contain a secret: they are composed here, never copied from net/http
// (whose errors include the full URL, query key and all).
package egress
