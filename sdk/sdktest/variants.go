package sdktest

import (
	"bytes"
	"io"
	"testing/iotest"
)

// CRLF returns b with every line end (LF or CRLF) written as CRLF.
func CRLF(b []byte) []byte {
	return bytes.ReplaceAll(LF(b), []byte("\n"), []byte("\r\n"))
}

// LF returns b with every CRLF written as LF.
func LF(b []byte) []byte {
	return bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n"))
}

// SplitReads returns the readers a streaming decoder must read a recorded
// body through with the same outcome, named for subtests. Each delivers one
// byte per Read, so every event and every line is split at every byte:
// "as-recorded" holds the body unchanged and, when lineEnds is set (for a
// line-based format such as SSE or NDJSON), "crlf" and "lf" hold it with
// every line end rewritten.
func SplitReads(body []byte, lineEnds bool) map[string]io.Reader {
	oneByte := func(b []byte) io.Reader { return iotest.OneByteReader(bytes.NewReader(b)) }
	readers := map[string]io.Reader{"as-recorded": oneByte(body)}
	if lineEnds {
		readers["crlf"] = oneByte(CRLF(body))
		readers["lf"] = oneByte(LF(body))
	}
	return readers
}
