package edit

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var now = time.Date(2026, 12, 2, 11, 45, 0, 0, time.FixedZone("CET", 3600))

const (
	oldText = "# mine\nprovider \"local\" {\n  preset = \"ollama\"\n}\n"
	newText = "# mine\nprovider \"local\" {\n  preset = \"ollama\"\n  tier   = \"local\"\n}\n"
)

// setup writes axon.hcl, mode 0640, in a fresh directory.
func setup(t *testing.T) (dir, path string) {
	t.Helper()
	dir = t.TempDir()
	path = filepath.Join(dir, "axon.hcl")
	if err := os.WriteFile(path, []byte(oldText), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o640); err != nil { // not the umask's choice
		t.Fatal(err)
	}
	return dir, path
}

func listDir(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	slices.Sort(names)
	return names
}

func assertFile(t *testing.T, path, text string, mode os.FileMode) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != text {
		t.Errorf("%s holds %q, want %q", path, b, text)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != mode {
		t.Errorf("%s has mode %v, want %v", path, info.Mode().Perm(), mode)
	}
}

func TestWriteFile(t *testing.T) {
	t.Parallel()
	dir, path := setup(t)
	backup, err := WriteFile(path, []byte(newText), now)
	if err != nil {
		t.Fatal(err)
	}
	if want := path + ".20261202T104500Z.bak"; backup != want {
		t.Errorf("backup = %s, want %s", backup, want)
	}
	assertFile(t, path, newText, 0o640)
	assertFile(t, backup, oldText, 0o640)
	if diff := cmp.Diff([]string{"axon.hcl", "axon.hcl.20261202T104500Z.bak"}, listDir(t, dir)); diff != "" {
		t.Errorf("directory (-want +got):\n%s", diff)
	}
}

func TestWriteFileBackupNameTaken(t *testing.T) {
	t.Parallel()
	dir, path := setup(t)
	taken := path + ".20261202T104500Z.bak"
	if err := os.WriteFile(taken, []byte("an older backup"), 0o600); err != nil {
		t.Fatal(err)
	}
	backup, err := WriteFile(path, []byte(newText), now)
	if err != nil {
		t.Fatal(err)
	}
	if want := path + ".20261202T104500Z.1.bak"; backup != want {
		t.Errorf("backup = %s, want %s", backup, want)
	}
	assertFile(t, backup, oldText, 0o640)
	assertFile(t, taken, "an older backup", 0o600)
	assertFile(t, path, newText, 0o640)
	if got := len(listDir(t, dir)); got != 3 {
		t.Errorf("%d files in the directory, want 3: %v", got, listDir(t, dir))
	}
}

// TestWriteFileFailure fails the write at each point where it can fail:
// the file is as it was and nothing is left beside it.
func TestWriteFileFailure(t *testing.T) {
	t.Parallel()
	errDisk := errors.New("no space left on device")
	tests := []struct {
		name string
		w    writer
	}{
		{
			name: "temp file write fails half way",
			w: writer{write: func(f *os.File, b []byte) (int, error) {
				if !strings.HasSuffix(f.Name(), ".tmp") {
					return f.Write(b)
				}
				n, _ := f.Write(b[:len(b)/2])
				return n, errDisk
			}},
		},
		{
			name: "short write",
			w: writer{write: func(f *os.File, b []byte) (int, error) {
				if !strings.HasSuffix(f.Name(), ".tmp") {
					return f.Write(b)
				}
				return f.Write(b[:1])
			}},
		},
		{
			name: "backup write fails",
			w: writer{write: func(f *os.File, b []byte) (int, error) {
				return 0, errDisk
			}},
		},
		{
			name: "rename fails",
			w:    writer{rename: func(string, string) error { return errDisk }},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir, path := setup(t)
			backup, err := tt.w.writeFile(path, []byte(newText), now)
			if err == nil {
				t.Fatal("no error")
			}
			if backup != "" {
				t.Errorf("backup = %q after a failure", backup)
			}
			assertFile(t, path, oldText, 0o640)
			if diff := cmp.Diff([]string{"axon.hcl"}, listDir(t, dir)); diff != "" {
				t.Errorf("directory after the failure (-want +got):\n%s", diff)
			}
		})
	}
}

func TestWriteFileReadOnlyDir(t *testing.T) {
	t.Parallel()
	if os.Geteuid() == 0 {
		// Root ignores directory modes, so the failure cannot be caused
		// here; the injected-writer tests above fail the same write, rename
		// and backup steps as root.
		t.Skip("root ignores a directory's mode: this failure needs an unprivileged user (the writer-hook tests cover it as root)")
	}
	dir, path := setup(t)
	if err := os.Chmod(dir, 0o500); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o700) })
	if _, err := WriteFile(path, []byte(newText), now); err == nil {
		t.Fatal("no error")
	}
	assertFile(t, path, oldText, 0o640)
	if diff := cmp.Diff([]string{"axon.hcl"}, listDir(t, dir)); diff != "" {
		t.Errorf("directory (-want +got):\n%s", diff)
	}
}

func TestWriteFileRefuses(t *testing.T) {
	t.Parallel()
	t.Run("a symbolic link", func(t *testing.T) {
		t.Parallel()
		dir, target := setup(t)
		link := filepath.Join(dir, "link.hcl")
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
		if _, err := WriteFile(link, []byte(newText), now); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Fatalf("err = %v, want a refusal", err)
		}
		assertFile(t, target, oldText, 0o640)
		if diff := cmp.Diff([]string{"axon.hcl", "link.hcl"}, listDir(t, dir)); diff != "" {
			t.Errorf("directory (-want +got):\n%s", diff)
		}
	})
	t.Run("text that does not parse", func(t *testing.T) {
		t.Parallel()
		dir, path := setup(t)
		if _, err := WriteFile(path, []byte("provider \"local\" {\n"), now); err == nil || !strings.Contains(err.Error(), "does not parse") {
			t.Fatalf("err = %v, want a refusal", err)
		}
		assertFile(t, path, oldText, 0o640)
		if diff := cmp.Diff([]string{"axon.hcl"}, listDir(t, dir)); diff != "" {
			t.Errorf("directory (-want +got):\n%s", diff)
		}
	})
	t.Run("a missing file", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		if _, err := WriteFile(filepath.Join(dir, "axon.hcl"), []byte(newText), now); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("err = %v, want one that is os.ErrNotExist", err)
		}
		if got := listDir(t, dir); len(got) != 0 {
			t.Errorf("directory holds %v, want nothing", got)
		}
	})
}
