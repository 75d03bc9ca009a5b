package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"unicode/utf8"

	"github.com/axonhq/axon/sdk"
)

const (
	toolRead     = "read_note"
	maxReadBytes = 64 << 10
)

func readSpec() sdk.ToolSpec {
	return sdk.ToolSpec{
		Name:        toolRead,
		Description: "Read a note. A long note is shown from its latest entries (the last 64 KiB).",
		InputSchema: json.RawMessage(`{"type":"object","properties":{` +
			`"note":{"type":"string","pattern":"^[A-Za-z0-9_-]{1,64}$","description":"note name; default \"notes\""}` +
			`},"additionalProperties":false}`),
		SideEffect: sdk.SideEffectNone,
	}
}

type readInput struct {
	Note string `json:"note"`
}

func (n *notes) callRead(inv sdk.Invocation) (sdk.ToolResult, error) {
	var in readInput
	if err := inv.Decode(&in); err != nil {
		return inv.Errorf("%v", err), nil
	}
	name, file, err := noteFile(in.Note)
	if err != nil {
		return inv.Errorf("%v", err), nil
	}
	n.mu.Lock() // never show an entry half written
	defer n.mu.Unlock()
	f, err := n.root.Open(file)
	if errors.Is(err, fs.ErrNotExist) {
		return inv.Errorf("there is no note named %q; list_notes shows the notes there are", name), nil
	}
	if err != nil {
		return sdk.ToolResult{}, fmt.Errorf("read note %q: %w", name, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return sdk.ToolResult{}, fmt.Errorf("read note %q: %w", name, err)
	}
	size := st.Size()
	start := max(0, size-maxReadBytes)
	buf := make([]byte, size-start)
	if _, err := f.ReadAt(buf, start); err != nil && !errors.Is(err, io.EOF) {
		return sdk.ToolResult{}, fmt.Errorf("read note %q: %w", name, err)
	}
	var text string
	if start > 0 {
		buf = fromEntry(buf)
		text = fmt.Sprintf("[note %q is %d bytes: earlier entries omitted, the latest %d bytes follow]\n\n", name, size, len(buf))
	}
	text += strings.ToValidUTF8(string(buf), "\uFFFD")
	if strings.TrimSpace(text) == "" {
		text = fmt.Sprintf("Note %q is empty.", name)
	}
	return inv.Result(text), nil
}

// fromEntry drops the partial entry at the start of the tail of a note,
// or, when the tail holds no entry heading, a partial character.
func fromEntry(tail []byte) []byte {
	if i := bytes.Index(tail, []byte("\n## ")); i >= 0 {
		return tail[i+1:]
	}
	for len(tail) > 0 && !utf8.RuneStart(tail[0]) {
		tail = tail[1:]
	}
	return tail
}
