package archtest

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestFixtureCopyMatchesShared: plugins/testdata/wire must be byte for
// byte the shared recorded fixtures, when the shared folder is present
// beside the checkout (it is not on every CI machine, hence the copy).
func TestFixtureCopyMatchesShared(t *testing.T) {
	t.Parallel()
	const copyDir = "../../../plugins/testdata/wire"
	shared := "../../../../shared/fixtures/wire"
	if _, err := os.Stat(shared); err != nil {
		t.Skipf("no shared fixtures beside the checkout (%v); the copy is used as is", err)
	}
	seen := map[string]bool{}
	err := filepath.WalkDir(shared, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(shared, p)
		seen[rel] = true
		want, _ := os.ReadFile(p)
		got, err := os.ReadFile(filepath.Join(copyDir, rel))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: the copy differs from the shared fixture (run make fixtures)", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	filepath.WalkDir(copyDir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if rel, _ := filepath.Rel(copyDir, p); !seen[rel] {
				t.Errorf("%s: in the copy but not in the shared fixtures", rel)
			}
		}
		return nil
	})
}
