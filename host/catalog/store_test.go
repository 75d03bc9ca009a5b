package catalog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/axonhq/axon/sdk"
)

// TestStoreIsLastKnownGood: an answer learned by one process is the
// facts of the next, whose plugin has not answered (is down, or not
// started); the directory holds the file alone, no temporary file.
func TestStoreIsLastKnownGood(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, FileName)
	store, err := OpenStore(path)
	if err != nil {
		t.Fatal(err)
	}
	c := newCatalog(t, mergeConfig, store)
	if err := c.Learn("local", []sdk.Model{{ID: "qwen3:8b", ContextWindow: 40960, MaxOutputTokens: 8192}}, b(true), time.Now()); err != nil {
		t.Fatal(err)
	}
	before, _ := c.Entry("local")

	reopened, err := OpenStore(path)
	if err != nil {
		t.Fatal(err)
	}
	after, _ := newCatalog(t, mergeConfig, reopened).Entry("local")
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("after a restart (-before +after):\n%s", diff)
	}
	if after.ContextWindow != 40960 || after.Sources["context_window"] != SourcePlugin {
		t.Errorf("the plugin's window was not kept: %+v", after)
	}
	names, _ := os.ReadDir(dir)
	if len(names) != 1 || names[0].Name() != FileName {
		t.Errorf("state directory holds %v, want %s alone", names, FileName)
	}

	// The same answer again writes nothing: the file deleted stays gone.
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := c.Learn("local", []sdk.Model{{ID: "qwen3:8b", ContextWindow: 40960, MaxOutputTokens: 8192}}, b(true), time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("an unchanged answer rewrote the file: %v", err)
	}
}

// TestCorruptStore: a damaged file, one of another version, or one that
// is not a catalog is ignored with an error saying why (the daemon logs
// it), never a crash; the catalog still has the configuration's and the
// tables' facts, and the next answer replaces the file.
func TestCorruptStore(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, body, want string }{
		{"truncated", `{"version":1,"providers":{"local":{"block":"x","models":[{"id":"q`, "not a catalog file"},
		{"binary", "\x00\x01\x02garbage", "not a catalog file"},
		{"another version", `{"version":9,"providers":{}}`, "version 9, want 1"},
		{"unknown field", `{"version":1,"providers":{},"secret":"x"}`, "unknown field"},
		{"a model out of bounds", `{"version":1,"providers":{"local":{"block":"x","models":[{"id":""}],"at":"2026-12-02T09:00:00Z"}}}`, "a model id of 0 bytes"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), FileName)
			if err := os.WriteFile(path, []byte(c.body), 0o600); err != nil {
				t.Fatal(err)
			}
			store, err := OpenStore(path)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), path+" ignored") {
				t.Fatalf("OpenStore: %v, want an error naming the file and %q", err, c.want)
			}
			cat := newCatalog(t, mergeConfig, store)
			if e, _ := cat.Entry("claude"); e.ContextWindow != 200_000 {
				t.Errorf("with the file ignored, claude's window is %d, want the table's", e.ContextWindow)
			}
			if err := cat.Learn("local", []sdk.Model{{ID: "qwen3:8b", ContextWindow: 40960}}, nil, time.Now()); err != nil {
				t.Fatal(err)
			}
			if _, err := OpenStore(path); err != nil {
				t.Errorf("the file the next answer wrote: %v", err)
			}
		})
	}
}

// TestStoreRefusesBadAnswers: an answer out of bounds is refused and the
// last good one kept.
func TestStoreRefusesBadAnswers(t *testing.T) {
	t.Parallel()
	c := newCatalog(t, mergeConfig, nil)
	if err := c.Learn("local", []sdk.Model{{ID: "qwen3:8b", ContextWindow: 40960}}, nil, time.Now()); err != nil {
		t.Fatal(err)
	}
	many := make([]sdk.Model, maxModels+1)
	for i := range many {
		many[i].ID = "m"
	}
	for name, ms := range map[string][]sdk.Model{
		"empty id":       {{ID: ""}},
		"overlong id":    {{ID: strings.Repeat("x", maxIDBytes+1)}},
		"negative count": {{ID: "qwen3:8b", ContextWindow: -1}},
		"too many":       many,
	} {
		if err := c.Learn("local", ms, nil, time.Now()); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if err := c.Learn("nobody", nil, nil, time.Now()); err == nil {
		t.Error("an answer for a provider block that does not exist was accepted")
	}
	if e, _ := c.Entry("local"); e.ContextWindow != 40960 {
		t.Errorf("the last good answer was lost: %+v", e)
	}
}

// TestStoreHoldsNoCredential: the file knows a block by a digest; neither
// its credential nor a base URL carrying a key reaches it.
func TestStoreHoldsNoCredential(t *testing.T) {
	t.Parallel()
	const canary = "sk-canary-7f3a9c2e1b"
	path := filepath.Join(t.TempDir(), FileName)
	store, _ := OpenStore(path)
	l := parseConfig(t, `provider "own" {
  plugin     = "openai"
  base_url   = "https://llm.example.com/v1?key=`+canary+`"
  model      = "m"
  credential = env("CANARY_KEY")
}
chain "default" { providers = [provider.own] }`)
	c := New(l, nil, store)
	if err := c.Learn("own", []sdk.Model{{ID: "m", ContextWindow: 8192}}, b(false), time.Now()); err != nil {
		t.Fatal(err)
	}
	body, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(body), canary) || strings.Contains(string(body), "llm.example.com") || strings.Contains(string(body), "CANARY_KEY") {
		t.Errorf("the catalog file holds the credential or the base URL:\n%s", body)
	}
	if !strings.Contains(string(body), `"context_window": 8192`) {
		t.Errorf("the catalog file lacks the answer:\n%s", body)
	}
}
