package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWriteReplacesTheFileWhole(t *testing.T) {
	for _, durable := range []bool{false, true} {
		dir := t.TempDir()
		path := filepath.Join(dir, "state.json")
		if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := Write(path, []byte("new content"), 0o640, durable); err != nil {
			t.Fatalf("durable %v: %v", durable, err)
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != "new content" {
			t.Fatalf("durable %v: read %q, %v", durable, got, err)
		}
		if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o640 {
			t.Errorf("durable %v: mode %v, want 0640", durable, fi.Mode().Perm())
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 1 {
			t.Errorf("durable %v: %d entries in the directory, want the file alone", durable, len(ents))
		}
	}
}

// TestAFailedWriteLeavesThePathAndNoTemporaryFile: a rename that cannot
// happen (the path is a non-empty directory) leaves the path as it was and
// removes the temporary file.
func TestAFailedWriteLeavesThePathAndNoTemporaryFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "taken")
	if err := os.MkdirAll(filepath.Join(path, "inside"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := Write(path, []byte("x"), 0o600, true); err == nil {
		t.Fatal("Write over a non-empty directory succeeded")
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 || ents[0].Name() != "taken" || !ents[0].IsDir() {
		t.Errorf("directory after the failed write: %v", ents)
	}
	if err := Write(filepath.Join(dir, "missing", "f"), []byte("x"), 0o600, false); err == nil {
		t.Error("Write into a missing directory succeeded")
	}
}
