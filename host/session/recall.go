package session

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"strings"
	"syscall"

	"github.com/axonhq/axon/sdk"
)

// RecallBlock is the tool block name the host-side recall tool is
// registered under. Its results are withheld from the control lane.
const RecallBlock = "recall"

// Recall is the host-side tool that reads one value from the owner's vault
// directory (`vault { dir = … }`): the only authorized read of an owner
// secret. A key is 1 to 128 ASCII letters, digits, '_' or '-', so no key
// can name a path outside the vault; the value is the regular file of that
// name, at most 64 KiB. A rejected key, a missing file and an unreadable
// one all answer "not found", so the model learns nothing about the vault
// from its failures.
type Recall struct {
	dir string
}

var _ Tool = (*Recall)(nil)

// NewRecall serves the vault at dir. The directory is opened at each call,
// so one created or filled later is seen.
func NewRecall(dir string) *Recall { return &Recall{dir: dir} }

const (
	maxRecallKey   = 128
	maxRecallValue = 64 << 10
	recallNotFound = "not found"
)

// Tools declares recall, of class none.
func (r *Recall) Tools(context.Context) ([]sdk.ToolSpec, error) {
	return []sdk.ToolSpec{{
		Name:        "recall",
		Description: "Read a value the owner stored under a key (for example a name, an address, an access code). Answers \"not found\" for a key that has no value.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"key":{"type":"string","pattern":"^[A-Za-z0-9_-]{1,128}$","description":"the key: letters, digits, _ and -"}},"required":["key"],"additionalProperties":false}`),
		SideEffect:  sdk.SideEffectNone,
	}}, nil
}

// Call answers with the value, or "not found".
func (r *Recall) Call(_ context.Context, inv sdk.Invocation) (sdk.ToolResult, error) {
	var in struct {
		Key string `json:"key"`
	}
	value, ok := "", json.Unmarshal(inv.Input, &in) == nil && ValidRecallKey(in.Key)
	if ok {
		value, ok = r.read(in.Key)
	}
	if !ok {
		value = recallNotFound
	}
	return sdk.ToolResult{CallID: inv.CallID, Name: inv.Name, Content: []sdk.Part{sdk.Text{Text: value}}}, nil
}

// ValidRecallKey reports whether key is a vault key: 1 to 128 bytes, each
// an ASCII letter, digit, '_' or '-'. Everything else ("..", "/", "\\", "",
// any non-ASCII byte) is refused.
func ValidRecallKey(key string) bool {
	if key == "" || len(key) > maxRecallKey {
		return false
	}
	for _, c := range []byte(key) {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c == '-':
		default:
			return false
		}
	}
	return true
}

// read returns the file's content, without one trailing newline. The file
// is opened through an os.Root, so not even a symlink planted in the vault
// leads out of it, and non-blocking, so a FIFO cannot hang the call.
func (r *Recall) read(key string) (string, bool) {
	root, err := os.OpenRoot(r.dir)
	if err != nil {
		return "", false
	}
	defer root.Close()
	f, err := root.OpenFile(key, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return "", false
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() || st.Size() > maxRecallValue {
		return "", false
	}
	b, err := io.ReadAll(io.LimitReader(f, maxRecallValue+1))
	if err != nil || len(b) > maxRecallValue {
		return "", false
	}
	return strings.TrimSuffix(string(b), "\n"), true
}
