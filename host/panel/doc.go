// Package panel is axon's localhost web panel: one embedded single-page
// app that shows the running daemon (the live turns and faces, the
// roster, the usage plots), runs a prompt on a chain, and edits the
// routing knobs of the configuration file, all through a Source the
// daemon implements.
//
// It must never reveal a credential's value (a provider's credential is
// shown as its reference, env:ZAI_API_KEY, as the Source gives it), never
// accept a state change from another web origin (every POST needs the
// same origin and the page's CSRF token; a Host that is not loopback is
// refused unless a token guards the panel), and never load an asset from
// the network: HTML, CSS and JS are embedded and the CSP allows 'self'
// only, so the panel works offline on a Raspberry Pi.
package panel
