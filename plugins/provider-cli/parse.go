package main

import (
	"bytes"
	"context"
	"strings"
	"unicode/utf8"

	"github.com/axonhq/axon/sdk"
)

// reader turns a client's stdout into the reply, as parse says. For text
// and json it keeps stdout whole (within maxStdout) and decides at exit;
// for jsonl it reads each line as it arrives, sending text deltas and
// usage on, and keeps only the unfinished line.
type reader struct {
	s  *settings
	st *sdk.Stream

	buf  []byte // text, json: all of stdout; jsonl: the line not yet ended
	seen tail   // the end of stdout, for matching patterns when the run fails

	// jsonl
	deltas   bool   // a text delta was sent
	result   string // the whole answer from result_path
	hasRes   bool
	reported bool   // error_path marked the run failed
	errText  string // the message that came with it

	sinkFailed bool // the sink refused an event: it is not called again
}

func newReader(s *settings, st *sdk.Stream) *reader {
	return &reader{s: s, st: st, seen: tail{max: stderrTail}}
}

// feed takes the next chunk of stdout.
func (r *reader) feed(ctx context.Context, chunk []byte) error {
	r.buf = append(r.buf, chunk...)
	r.seen.Write(chunk)
	if r.s.parse != parseJSONL {
		return nil
	}
	for {
		i := bytes.IndexByte(r.buf, '\n')
		if i < 0 {
			break
		}
		if err := r.line(ctx, r.buf[:i]); err != nil {
			return err
		}
		r.buf = r.buf[i+1:]
	}
	if len(r.buf) > maxLine {
		return sdk.ErrEventTooLarge.Newf("cli: a line of the client's output is beyond %d bytes", maxLine)
	}
	// Keep the unfinished line at the front of a buffer of its own size, so
	// a long stream does not keep every line it has read.
	if cap(r.buf) > 2*maxLine {
		r.buf = append([]byte(nil), r.buf...)
	}
	return nil
}

// end takes the end of stdout: jsonl's last line when it had no newline.
func (r *reader) end(ctx context.Context) error {
	if r.s.parse != parseJSONL || len(r.buf) == 0 {
		return nil
	}
	line := r.buf
	r.buf = nil
	return r.line(ctx, line)
}

// line reads one jsonl event. A line that is not JSON is passed over and
// counted (sdk.Stream.Skip); a line error_path marks carries the failure,
// and its text is not sent.
func (r *reader) line(ctx context.Context, b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return nil
	}
	doc, err := decodeJSON(b)
	if err != nil {
		return r.st.Skip(sdk.Permanentf("cli: a line of the client's output is not JSON"))
	}
	r.usage(doc)
	if set, msg := r.s.errFlag.flag(doc); set {
		r.reported = true
		if msg == "" {
			msg, _ = r.s.result.text(doc)
		}
		if msg == "" {
			msg, _ = r.s.text.text(doc)
		}
		if r.errText == "" {
			r.errText = msg
		}
		return nil
	}
	if res, ok := r.s.result.text(doc); ok {
		r.result, r.hasRes = res, true
	}
	if t, ok := r.s.text.text(doc); ok && t != "" {
		r.deltas = true
		if err := r.st.Text(ctx, t); err != nil {
			r.sinkFailed = true
			return err
		}
	}
	return nil
}

// usage reports the token counts doc holds.
func (r *reader) usage(doc any) {
	u := &sdk.Usage{}
	if n, ok := r.s.inTokens.count(doc); ok {
		u.InputTokens = sdk.Tokens(n)
	}
	if n, ok := r.s.outTokens.count(doc); ok {
		u.OutputTokens = sdk.Tokens(n)
	}
	r.st.Usage(u)
}

// reply is what a finished run answered, read once the client has exited.
type reply struct {
	text     string
	reported bool   // error_path marked the run failed
	errText  string // its message
	badJSON  bool   // json: stdout was not one JSON object
}

// finish reads the whole of stdout for text and json, after the client
// exited; for jsonl it returns what the lines said.
func (r *reader) finish() reply {
	switch r.s.parse {
	case parseText:
		s := strings.TrimSuffix(string(r.buf), "\n")
		s = strings.TrimSuffix(s, "\r")
		return reply{text: strings.ToValidUTF8(s, string(utf8.RuneError))}
	case parseJSON:
		doc, err := decodeJSON(bytes.TrimSpace(r.buf))
		if _, isObj := doc.(map[string]any); err != nil || !isObj {
			return reply{badJSON: true}
		}
		r.usage(doc)
		text, _ := r.s.text.text(doc)
		rep := reply{text: text}
		if set, msg := r.s.errFlag.flag(doc); set {
			if msg == "" {
				msg = text
			}
			rep = reply{reported: true, errText: msg}
		}
		return rep
	}
	rep := reply{reported: r.reported, errText: r.errText}
	if !r.deltas && r.hasRes {
		rep.text = r.result
	}
	return rep
}

// stdoutTail is the end of stdout kept for matching patterns, at most
// stderrTail bytes of it.
func (r *reader) stdoutTail() []byte { return r.seen.Bytes() }
