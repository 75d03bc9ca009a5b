package main

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/axonhq/axon/sdk"
)

const toolList = "list_notes"

func listSpec() sdk.ToolSpec {
	return sdk.ToolSpec{
		Name:        toolList,
		Description: "List the notes: name, size and when each last changed.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`),
		SideEffect:  sdk.SideEffectNone,
	}
}

func (n *notes) callList(inv sdk.Invocation) (sdk.ToolResult, error) {
	var in struct{}
	if err := inv.Decode(&in); err != nil {
		return inv.Errorf("%v", err), nil
	}
	entries, err := fs.ReadDir(n.root.FS(), ".")
	if err != nil {
		return sdk.ToolResult{}, fmt.Errorf("list notes: %w", err)
	}
	var lines []string
	for _, e := range entries { // sorted by file name
		name, ok := strings.CutSuffix(e.Name(), noteExt)
		if !ok || !e.Type().IsRegular() || !nameRE.MatchString(name) {
			continue // not a note: the index, or a file someone else put here
		}
		info, err := e.Info()
		if err != nil {
			continue // removed since ReadDir
		}
		lines = append(lines, fmt.Sprintf("%s (%d bytes, changed %s)", name, info.Size(), info.ModTime().Format(time.RFC3339)))
	}
	if len(lines) == 0 {
		return inv.Result("No notes yet."), nil
	}
	return inv.Result(strings.Join(lines, "\n")), nil
}
