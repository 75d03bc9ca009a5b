package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/axonhq/axon/sdk"
)

var fixedNow = time.Date(2026, time.November, 29, 14, 3, 4, 0, time.FixedZone("CET", 3600))

// newNotes returns a configured plugin over dir whose clock reads fixedNow.
func newNotes(t *testing.T, dir string) *notes {
	t.Helper()
	n := &notes{now: func() time.Time { return fixedNow }}
	values, _ := json.Marshal(map[string]string{"dir": dir})
	if err := n.Configure(context.Background(), sdk.Config{Values: values}); err != nil {
		t.Fatalf("Configure: %v", err)
	}
	t.Cleanup(func() {
		if err := n.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return n
}

// call runs one tool under an idempotency key ("" for none).
func call(t *testing.T, n *notes, tool, key, input string) (string, bool) {
	t.Helper()
	res, err := n.Call(context.Background(), sdk.Invocation{CallID: "c-" + key, Name: tool, Input: json.RawMessage(input), IdempotencyKey: key})
	if err != nil {
		t.Fatalf("Call(%s, %s): %v", tool, input, err)
	}
	if res.CallID != "c-"+key {
		t.Errorf("result call id %q, want %q", res.CallID, "c-"+key)
	}
	return sdk.TextOf(res.Content), res.IsError
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestAppendListRead(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	n := newNotes(t, dir)

	steps := []struct {
		tool, input string
		want        string
		wantErr     bool
	}{
		{tool: toolRead, input: `{}`, want: `there is no note named "notes"; list_notes shows the notes there are`, wantErr: true},
		{tool: toolList, input: `{}`, want: "No notes yet."},
		{tool: toolAppend, input: `{"title":"Shopping\nlist","text":"  milk, eggs\n"}`, want: `Appended to note "notes" at 2026-11-29T14:03:04+01:00.`},
		{tool: toolAppend, input: `{"text":"call Ana"}`, want: `Appended to note "notes" at 2026-11-29T14:03:04+01:00.`},
		{tool: toolAppend, input: `{"note":"garden-2026","text":"plant tulips"}`, want: `Appended to note "garden-2026" at 2026-11-29T14:03:04+01:00.`},
		{tool: toolRead, input: `{}`, want: "## 2026-11-29T14:03:04+01:00 — Shopping list\n\nmilk, eggs\n\n## 2026-11-29T14:03:04+01:00\n\ncall Ana\n\n"},
		{tool: toolRead, input: `{"note":"garden-2026"}`, want: "## 2026-11-29T14:03:04+01:00\n\nplant tulips\n\n"},
		{tool: toolAppend, input: `{"text":"   "}`, want: "text is required", wantErr: true},
		{tool: toolAppend, input: `{"text":"` + strings.Repeat("x", maxTextBytes+1) + `"}`, want: "text is 65537 bytes; an entry holds at most 65536", wantErr: true},
		{tool: toolAppend, input: `{"body":"x"}`, want: `invalid arguments: json: unknown field "body"`, wantErr: true},
		{tool: "delete_note", input: `{}`, want: `unknown tool "delete_note": this plugin serves append_note, list_notes and read_note`, wantErr: true},
	}
	for i, s := range steps {
		got, isErr := call(t, n, s.tool, "", s.input)
		if isErr != s.wantErr || got != s.want {
			t.Errorf("step %d %s %s:\n got %q (error %v)\nwant %q (error %v)", i, s.tool, s.input, got, isErr, s.want, s.wantErr)
		}
	}

	list, isErr := call(t, n, toolList, "", `{}`)
	lines := strings.Split(list, "\n")
	if isErr || len(lines) != 2 || !strings.HasPrefix(lines[0], "garden-2026 (44 bytes, changed ") || !strings.HasPrefix(lines[1], "notes (") {
		t.Errorf("list_notes = %q", list)
	}
}

func TestToolSpecs(t *testing.T) {
	t.Parallel()
	specs, err := (&notes{}).Tools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]sdk.SideEffect{}
	for _, s := range specs {
		got[s.Name] = s.SideEffect
	}
	want := map[string]sdk.SideEffect{toolAppend: sdk.SideEffectUnsafe, toolList: sdk.SideEffectNone, toolRead: sdk.SideEffectNone}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("side effects (-want +got):\n%s", diff)
	}
}

func TestHandEditedNoteKeepsHeadingsOnTheirOwnLine(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.md"), []byte("my own line, no newline"), 0o600); err != nil {
		t.Fatal(err)
	}
	n := newNotes(t, dir)
	if text, isErr := call(t, n, toolAppend, "", `{"text":"x"}`); isErr {
		t.Fatal(text)
	}
	want := "my own line, no newline\n## 2026-11-29T14:03:04+01:00\n\nx\n\n"
	if got := readFile(t, filepath.Join(dir, "notes.md")); got != want {
		t.Errorf("file %q, want %q", got, want)
	}
}

func TestListSkipsWhatIsNotANote(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	n := newNotes(t, dir)
	for _, f := range []string{"README.txt", "bad name.md", ".hidden.md", "ok.md"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "folder.md"), 0o700); err != nil {
		t.Fatal(err)
	}
	got, _ := call(t, n, toolList, "", `{}`)
	if !strings.HasPrefix(got, "ok (1 bytes, changed ") || strings.Contains(got, "\n") {
		t.Errorf("list_notes = %q, want only ok", got)
	}
}

func TestReadLongNoteShowsLatestEntries(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	n := newNotes(t, dir)
	text := strings.Repeat("é", 1000) // 2000 bytes, multi-byte characters
	for range 40 {
		if got, isErr := call(t, n, toolAppend, "", `{"text":"`+text+`"}`); isErr {
			t.Fatal(got)
		}
	}
	call(t, n, toolAppend, "", `{"title":"last","text":"the end"}`)
	got, isErr := call(t, n, toolRead, "", `{}`)
	if isErr {
		t.Fatal(got)
	}
	head, body, _ := strings.Cut(got, "\n\n")
	if !strings.HasPrefix(head, `[note "notes" is 81`) || !strings.Contains(head, "earlier entries omitted") {
		t.Errorf("header %q", head)
	}
	if !strings.HasPrefix(body, "## 2026-11-29T14:03:04+01:00\n\néé") || !strings.HasSuffix(body, "## 2026-11-29T14:03:04+01:00 — last\n\nthe end\n\n") {
		t.Errorf("body does not run from an entry heading to the last entry: %.40q … %q", body, body[len(body)-60:])
	}
	if len(body) > maxReadBytes {
		t.Errorf("body is %d bytes, over %d", len(body), maxReadBytes)
	}
}

func TestConfigure(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	tests := []struct {
		name    string
		values  string
		wantDir string
		wantErr string
	}{
		{name: "absolute, created", values: `{"dir":"` + filepath.Join(home, "a", "b") + `"}`, wantDir: filepath.Join(home, "a", "b")},
		{name: "home relative (the host expands ~)", values: `{"dir":"~/pet-notes"}`, wantErr: "must be absolute"},
		{name: "missing", values: `{}`, wantErr: "dir is required"},
		{name: "relative", values: `{"dir":"notes"}`, wantErr: "must be absolute"},
		{name: "a file, not a directory", values: `{"dir":"` + filepath.Join(home, "file") + `"}`, wantErr: "dir"},
	}
	if err := os.WriteFile(filepath.Join(home, "file"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := &notes{}
			err := n.Configure(context.Background(), sdk.Config{Values: json.RawMessage(tt.values)})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || sdk.ClassOf(err) != sdk.ClassPermanent {
					t.Fatalf("Configure error %v, want a permanent one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer n.Close()
			st, err := os.Stat(filepath.Join(tt.wantDir, appliedFile))
			if err != nil {
				t.Fatalf("no index in %s: %v", tt.wantDir, err)
			}
			if st.Mode().Perm() != 0o600 {
				t.Errorf("index mode %v, want 0600", st.Mode().Perm())
			}
		})
	}
}

func TestCallBeforeConfigure(t *testing.T) {
	t.Parallel()
	if _, err := (&notes{}).Call(context.Background(), sdk.Invocation{Name: toolList}); err == nil {
		t.Fatal("Call before Configure succeeded")
	}
}
