package main

import (
	"context"
	"errors"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/axonhq/axon/sdk"
)

// mcpRPCError is a JSON-RPC error the server answered with.
type mcpRPCError = jsonrpc.Error

// maxErrorText bounds what of a server's own words an error quotes.
const maxErrorText = 200

// The codes of this plugin's errors, for errors.Is.
var (
	// errServerExited: the server process ended during the call.
	errServerExited = &sdk.Error{Class: sdk.ClassTransient, Code: "server_exited"}
	// errServerFailed: the connection broke (a protocol the client could
	// not read, an HTTP failure).
	errServerFailed = &sdk.Error{Class: sdk.ClassTransient, Code: "server_failed"}
)

// classify maps a failed call or start to the sdk taxonomy. The caller's
// end is its own error; the per-call timeout is transient timeout; a
// server that died or broke the protocol is transient too, since a fresh
// server may well answer. The host treats every returned error as an
// outcome unknown, and never sends an unsafe call again.
func classify(ctx, cctx context.Context, timeout time.Duration, exited bool, err error, what string) error {
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.Is(cctx.Err(), context.DeadlineExceeded):
		return sdk.ErrTimeout.Newf("mcp: %s: no answer within %s; the server was stopped and starts again on the next call", what, timeout)
	case exited:
		return errServerExited.Newf("mcp: %s: the server exited (%s); it starts again on the next call", what, short(err))
	}
	var se *sdk.Error
	if errors.As(err, &se) {
		return se // from the egress: already classified
	}
	return errServerFailed.Newf("mcp: %s: %s; the server was stopped and starts again on the next call", what, short(err))
}

// short is err's text cut to maxErrorText, printable.
func short(err error) string { return clean(err.Error(), maxErrorText) }

// clean keeps the first max bytes of s, valid UTF-8 and printable.
func clean(s string, max int) string {
	s = strings.ToValidUTF8(s, "")
	if len(s) > max {
		s = s[:max]
		for len(s) > 0 && !utf8.ValidString(s) {
			s = s[:len(s)-1]
		}
	}
	return strings.Map(func(r rune) rune {
		if unicode.IsPrint(r) || r == '\n' || r == '\t' {
			return r
		}
		return ' '
	}, s)
}
