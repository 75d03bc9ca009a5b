// Command mcp-notes is an example MCP server (Model Context Protocol, over
// stdio) written with the MCP Go SDK: a small notes store under --root
// with one read-only tool, read_note, and one destructive one,
// append_note. axon offers both to a model through its mcp tool plugin
// (plugins/tool-mcp), which reads their side-effect classes from the
// annotations: read_note is none (re-run freely after a crash),
// append_note is unsafe (never sent twice).
//
// Every call is first written to <root>/calls.log, one line each, so a
// test (or you) can count what the server was asked to do. The server
// touches nothing outside --root: notes are named by a conservative
// pattern and opened through an os.Root.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"regexp"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxNote bounds what read_note returns and append_note accepts.
const maxNote = 64 << 10

var noteRE = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

type store struct {
	root *os.Root
	mu   sync.Mutex // serialises appends and the call log
}

type readIn struct {
	Note string `json:"note" jsonschema:"the note's name: letters, digits, _ and -"`
}

type appendIn struct {
	Note string `json:"note" jsonschema:"the note's name: letters, digits, _ and -"`
	Text string `json:"text" jsonschema:"the text to append, as one line"`
}

func main() {
	rootDir := flag.String("root", "", "directory holding the notes (created when missing)")
	flag.Parse()
	if err := run(*rootDir); err != nil {
		fmt.Fprintln(os.Stderr, "mcp-notes:", err) // stderr: stdout is the protocol
		os.Exit(1)
	}
}

func run(dir string) error {
	if dir == "" {
		return errors.New("--root is required")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	return newServer(&store{root: root}).Run(context.Background(), &mcp.StdioTransport{})
}

// newServer is the MCP server over st.
func newServer(st *store) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "mcp-notes", Version: "v1"}, nil)
	mcp.AddTool(s, &mcp.Tool{
		Name:        "read_note",
		Description: "Read a note. Returns its whole text, or an error when it does not exist.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
	}, st.read)
	destructive := true
	mcp.AddTool(s, &mcp.Tool{
		Name:        "append_note",
		Description: "Append one line of text to a note, creating it when missing. Every call appends again.",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: &destructive, IdempotentHint: false},
	}, st.append)
	return s
}

func text(s string, isError bool) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: isError, Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// logCall appends one line to calls.log and syncs it, before the call acts.
func (st *store) logCall(tool, note, arg string) error {
	f, err := st.root.OpenFile("calls.log", os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := fmt.Fprintf(f, "%s %s %q\n", tool, note, arg); err != nil {
		return err
	}
	return f.Sync()
}

func (st *store) read(_ context.Context, _ *mcp.CallToolRequest, in readIn) (*mcp.CallToolResult, any, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if err := st.logCall("read_note", in.Note, ""); err != nil {
		return nil, nil, err
	}
	if !noteRE.MatchString(in.Note) {
		return text(fmt.Sprintf("%q is not a note name: use letters, digits, _ and -", in.Note), true), nil, nil
	}
	f, err := st.root.Open(in.Note + ".md")
	if errors.Is(err, fs.ErrNotExist) {
		return text(fmt.Sprintf("there is no note %q", in.Note), true), nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxNote))
	if err != nil {
		return nil, nil, err
	}
	return text(string(b), false), nil, nil
}

func (st *store) append(_ context.Context, _ *mcp.CallToolRequest, in appendIn) (*mcp.CallToolResult, any, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if err := st.logCall("append_note", in.Note, in.Text); err != nil {
		return nil, nil, err
	}
	switch {
	case !noteRE.MatchString(in.Note):
		return text(fmt.Sprintf("%q is not a note name: use letters, digits, _ and -", in.Note), true), nil, nil
	case in.Text == "" || len(in.Text) > maxNote:
		return text(fmt.Sprintf("text must be 1 to %d bytes", maxNote), true), nil, nil
	}
	f, err := st.root.OpenFile(in.Note+".md", os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	if _, err := f.WriteString(in.Text + "\n"); err != nil {
		return nil, nil, err
	}
	if err := f.Sync(); err != nil {
		return nil, nil, err
	}
	return text(fmt.Sprintf("appended to note %q", in.Note), false), nil, nil
}
