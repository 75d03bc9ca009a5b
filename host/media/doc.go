// Package media fetches the images and documents a client gave by URL, for
// a provider whose API takes them only as inline data (sdk.Info.InlineMedia:
// Ollama, Gemini), and puts the bytes into the hop's copy of the request.
//
// A URL here is chosen by the client, and the host fetches it from the
// user's own network, where it could reach what the public internet cannot.
// So a Fetcher refuses every destination that is not a public address
// (loopback, private, link-local, CGNAT, multicast, unspecified,
// documentation and other reserved ranges), checked on the address actually
// dialed, after resolution, so DNS rebinding cannot dodge it; only an
// origin the configuration lists may be reached there, and only such an
// origin may be plain http. Redirects are followed a bounded number of
// times, each one checked again. Every fetch is bounded in bytes (counted
// while reading, whatever Content-Length says), per part and per request,
// and in time; the response's content type must fit the part.
//
// It must never attach a credential (the URL is the client's, not a
// provider's: no header, no cookie, no proxy, not even one from the
// environment), never follow a redirect it has not checked, and never log
// or return in an error a fetched byte or a URL's query string (it may be a
// signature). It is not the plugins' egress (host/egress): that serves a
// plugin's grant, origins known in advance; this serves the host itself,
// on URLs no configuration could list.
package media
