package archtest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const fixtureCopy = "../../../plugins/testdata/wire"

// TestFixtureCopyIsUnedited: every recorded body in plugins/testdata/wire
// still has the sha256 and size its sidecar recorded when the response was
// captured, so the copy is the recorders' bytes on any machine.
func TestFixtureCopyIsUnedited(t *testing.T) {
	t.Parallel()
	metas, err := filepath.Glob(filepath.Join(fixtureCopy, "*", "*.meta.json"))
	if err != nil || len(metas) == 0 {
		t.Fatalf("no fixture sidecars under %s: %v", fixtureCopy, err)
	}
	for _, m := range metas {
		var meta struct {
			SHA256 string `json:"sha256"`
			Bytes  int    `json:"bytes"`
		}
		raw, err := os.ReadFile(m)
		if err != nil || json.Unmarshal(raw, &meta) != nil || meta.SHA256 == "" {
			t.Errorf("%s: unreadable sidecar or no sha256", m)
			continue
		}
		base := strings.TrimSuffix(m, ".meta.json")
		var body []byte
		found := 0
		for _, ext := range []string{".json", ".sse", ".txt"} {
			if b, err := os.ReadFile(base + ext); err == nil {
				body, found = b, found+1
			}
		}
		if found != 1 {
			t.Errorf("%s: %d bodies, want exactly one", m, found)
			continue
		}
		sum := sha256.Sum256(body)
		if hex.EncodeToString(sum[:]) != meta.SHA256 || len(body) != meta.Bytes {
			t.Errorf("%s: the body no longer matches its recorded sha256 and size", base)
		}
	}
}

// TestFixtureCopyMatchesShared: where the shared folder sits beside the
// checkout (a developer machine; CI has only the copy), the copy holds
// exactly its files, byte for byte (run make fixtures to refresh it).
func TestFixtureCopyMatchesShared(t *testing.T) {
	t.Parallel()
	shared := "../../../../shared/fixtures/wire"
	if _, err := os.Stat(shared); err != nil {
		t.Skipf("nothing to compare with: no shared fixtures beside this checkout (%v); TestFixtureCopyIsUnedited still checks the copy", err)
	}
	seen := map[string]bool{}
	err := filepath.WalkDir(shared, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(shared, p)
		seen[rel] = true
		want, _ := os.ReadFile(p)
		got, err := os.ReadFile(filepath.Join(fixtureCopy, rel))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: the copy differs from the shared fixture (run make fixtures)", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	filepath.WalkDir(fixtureCopy, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if rel, _ := filepath.Rel(fixtureCopy, p); !seen[rel] {
				t.Errorf("%s: in the copy but not in the shared fixtures", rel)
			}
		}
		return nil
	})
}
