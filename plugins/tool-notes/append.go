package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/axonhq/axon/sdk"
)

const (
	toolAppend    = "append_note"
	maxTextBytes  = 64 << 10
	maxTitleBytes = 200
)

func appendSpec() sdk.ToolSpec {
	return sdk.ToolSpec{
		Name: toolAppend,
		Description: "Append a timestamped entry to a note (a Markdown file). Each call adds one entry; " +
			"calling twice adds it twice.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{` +
			`"note":{"type":"string","pattern":"^[A-Za-z0-9_-]{1,64}$","description":"note name; default \"notes\""},` +
			`"title":{"type":"string","description":"optional one-line heading of the entry"},` +
			`"text":{"type":"string","description":"the entry"}` +
			`},"required":["text"],"additionalProperties":false}`),
		SideEffect: sdk.SideEffectUnsafe,
	}
}

type appendInput struct {
	Note  string `json:"note"`
	Title string `json:"title"`
	Text  string `json:"text"`
}

func (n *notes) callAppend(inv sdk.Invocation) (sdk.ToolResult, error) {
	var in appendInput
	if err := inv.Decode(&in); err != nil {
		return inv.Errorf("%v", err), nil
	}
	name, file, err := noteFile(in.Note)
	if err != nil {
		return inv.Errorf("%v", err), nil
	}
	text := strings.TrimSpace(in.Text)
	title := strings.Join(strings.Fields(in.Title), " ")
	switch {
	case text == "":
		return inv.Errorf("text is required"), nil
	case len(text) > maxTextBytes:
		return inv.Errorf("text is %d bytes; an entry holds at most %d", len(text), maxTextBytes), nil
	case len(title) > maxTitleBytes:
		return inv.Errorf("title is %d bytes; at most %d", len(title), maxTitleBytes), nil
	}

	n.mu.Lock()
	defer n.mu.Unlock()
	key := inv.IdempotencyKey
	if rec, ok := n.index.lookup(key); ok {
		if present(n.root, rec) {
			n.log.Info("append already applied under this key: returning its result", "key", key, "note", rec.Note)
			return inv.Result(appended(rec.Note, rec.At)), nil
		}
		n.log.Warn("an earlier append under this key never reached its note: appending now", "key", key, "note", rec.Note)
	}
	at := n.now().Format(time.RFC3339)
	if err := n.write(name, file, key, at, entry(at, title, text)); err != nil {
		return sdk.ToolResult{}, fmt.Errorf("append to note %q: %w", name, err)
	}
	return inv.Result(appended(name, at)), nil
}

func appended(name, at string) string { return fmt.Sprintf("Appended to note %q at %s.", name, at) }

// entry is one note entry: a Markdown heading with the time and title,
// the text, and a blank line.
func entry(at, title, text string) []byte {
	head := "## " + at
	if title != "" {
		head += " — " + title
	}
	return []byte(head + "\n\n" + text + "\n\n")
}

// write appends e to file in one write and fsyncs it, after recording key
// (when there is one) in the idempotency index.
func (n *notes) write(name, file, key, at string, e []byte) error {
	f, err := n.root.OpenFile(file, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	offset := st.Size()
	if offset > 0 && !endsWithNewline(f, offset) {
		e = append([]byte("\n"), e...) // a hand-edited file: keep the heading on its own line
	}
	if key != "" {
		if err := n.index.record(applied{Key: key, Note: name, Offset: offset, Size: len(e), Sum: checksum(e), At: at}); err != nil {
			return err
		}
	}
	if _, err := f.Write(e); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if offset == 0 {
		return syncDir(n.root) // the file may be new
	}
	return nil
}

func endsWithNewline(f io.ReaderAt, size int64) bool {
	b := make([]byte, 1)
	_, err := f.ReadAt(b, size-1)
	return err == nil && b[0] == '\n'
}
