package serve

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// allocateForProfile allocates far more than the runtime's sampling
// interval (512 KiB), so the allocation profile must name it.
//
//go:noinline
func allocateForProfile() int {
	n := 0
	for range 64 {
		b := make([]byte, 1<<20)
		n += len(b)
	}
	return n
}

// TestProfilesAreWrittenWhenThePluginStops: the two files the host asked
// for exist, are pprof's gzipped protobuf, are readable by others (the host
// user, when the plugin ran under a subordinate uid), and the allocation
// profile names the function that allocated.
func TestProfilesAreWrittenWhenThePluginStops(t *testing.T) {
	dir := t.TempDir()
	stop, err := startProfiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, allocsProfile)); err == nil {
		t.Errorf("%s exists before the plugin stops", allocsProfile)
	}
	allocateForProfile()
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{cpuProfile, allocsProfile} {
		path := filepath.Join(dir, name)
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != 0o644 {
			t.Errorf("%s: mode %v, want 0644", name, st.Mode().Perm())
		}
		raw := gunzip(t, path)
		if len(raw) == 0 {
			t.Errorf("%s: empty profile", name)
		}
		if name == allocsProfile && !bytes.Contains(raw, []byte("allocateForProfile")) {
			t.Errorf("%s does not name allocateForProfile", name)
		}
	}
	text, err := os.ReadFile(filepath.Join(dir, metricsFile))
	if err != nil {
		t.Fatal(err)
	}
	// The figures the idle-RSS benchmark reads: the heap's live objects and
	// everything the runtime mapped.
	for _, name := range []string{"/memory/classes/heap/objects:bytes ", "/memory/classes/total:bytes ", "/gc/heap/goal:bytes "} {
		if !bytes.Contains(text, []byte("\n"+name)) && !bytes.HasPrefix(text, []byte(name)) {
			t.Errorf("%s has no %q line:\n%s", metricsFile, name, text)
		}
	}
}

func TestNoProfileWithoutTheVariable(t *testing.T) {
	t.Setenv("AXON_PLUGIN_PROFILE_DIR", "")
	dir := t.TempDir()
	t.Chdir(dir)
	profileIfAsked(nil)()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 0 {
		t.Errorf("files written without the variable: %v", entries)
	}
}

func gunzip(t *testing.T, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: not a gzipped pprof profile: %v", path, err)
	}
	b, err := io.ReadAll(z)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return b
}
