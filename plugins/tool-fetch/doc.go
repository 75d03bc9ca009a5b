// Command axon-tool-fetch is the axon tool plugin that reads a web page or
// an HTTP API for the model: one tool, fetch, an HTTP GET whose HTML answer
// is reduced to readable text and whose text or JSON answer is passed
// through, cut at a size limit.
//
// It never opens a socket: every request, redirects included, goes through
// the host's egress (sdk.HTTPClient), which enforces the tool block's allow
// list. The plugin checks its own allow list first only so the model gets a
// clear refusal. It sends no credential, never follows a URL with user
// information in it, and reports failures the model can act on (a host not
// allowed, a 404, a timeout) as error results, not Go errors.
package main
