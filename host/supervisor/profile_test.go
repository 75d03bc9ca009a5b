package supervisor

import (
	"compress/gzip"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/axonhq/axon/host/internal/logbuf"
	"github.com/axonhq/axon/internal/pluginrpc"
	"github.com/axonhq/axon/sdk"
)

// TestPluginProfiles runs sandboxed plugin processes with and without
// Options.ProfileDir. With it, each process is told its own directory, sees
// that directory and nothing else of the profile directory, runs with the
// same jail layers as without, and leaves a CPU and an allocation profile
// there once it stops. Without it, nothing tells a plugin to profile.
func TestPluginProfiles(t *testing.T) {
	t.Parallel()
	dir, err := PrepareProfileDir(filepath.Join(t.TempDir(), "profiles"))
	if err != nil {
		t.Fatal(err)
	}
	logs := &logbuf.Buffer{}
	plain := newSupervisor(t, logs, Options{})
	profiled := New(nullLogger(), Options{ProfileDir: dir})
	t.Cleanup(profiled.Close)
	for _, s := range []*Supervisor{plain, profiled} {
		for _, name := range []string{"a", "b"} {
			if err := s.Add(Spec{Name: name, Kind: sdk.KindProvider, Path: bin("hostile")}); err != nil {
				t.Fatal(err)
			}
		}
	}
	ctx := context.Background()
	say := func(s *Supervisor, name, cmd string) string {
		t.Helper()
		in, _ := s.Instance(name)
		_, text, err := collect(ctx, in, cmd)
		if err != nil {
			t.Fatalf("%s: %v", cmd, err)
		}
		return text
	}

	want := pluginrpc.ProfileDirEnv + "=" + filepath.Join(dir, "a")
	if env := say(profiled, "a", "env"); !strings.Contains(env, want) {
		t.Errorf("profiled plugin's environment %s lacks %s", env, want)
	}
	if env := say(plain, "a", "env"); strings.Contains(env, pluginrpc.ProfileDirEnv) {
		t.Errorf("unprofiled plugin's environment names %s: %s", pluginrpc.ProfileDirEnv, env)
	}
	if got, want := say(profiled, "a", "attack open "+dir), "listed directory "+dir+" (1 entries): a"; !strings.Contains(got, want) {
		t.Errorf("the profile directory as plugin a sees it: %s, want %q", got, want)
	}
	if got := say(profiled, "a", "attack open "+filepath.Join(dir, "b")); !strings.HasPrefix(got, "blocked:") {
		t.Errorf("plugin a reached plugin b's profile directory: %s", got)
	}
	pa, _ := plain.Instance("a")
	qa, _ := profiled.Instance("a")
	if pa.Layers().String() != qa.Layers().String() {
		t.Errorf("jail layers with profiling %q, without %q", qa.Layers(), pa.Layers())
	}

	profiled.Close() // stops the plugins, which write their profiles
	for _, name := range []string{"cpu.pprof", "allocs.pprof"} {
		path := filepath.Join(dir, "a", name)
		f, err := os.Open(path)
		if err != nil {
			t.Fatalf("plugin a left no %s: %v", name, err)
		}
		z, err := gzip.NewReader(f)
		if err == nil {
			var b []byte
			b, err = io.ReadAll(z)
			if err == nil && len(b) == 0 {
				err = io.ErrUnexpectedEOF
			}
		}
		f.Close()
		if err != nil {
			t.Errorf("%s is not a pprof profile: %v", path, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "b", "cpu.pprof")); err == nil {
		t.Errorf("plugin b, never started, left a profile")
	}
}

func TestPrepareProfileDirRefusesASharedDirectory(t *testing.T) {
	t.Parallel()
	shared := t.TempDir()
	if err := os.Chmod(shared, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := PrepareProfileDir(shared); err == nil || !strings.Contains(err.Error(), "open to other users") {
		t.Errorf("PrepareProfileDir(0755 dir) = %v, want refused", err)
	}
	made, err := PrepareProfileDir(filepath.Join(shared, "new"))
	if err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(made); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("new profile directory: %v, %v; want mode 0700", st.Mode(), err)
	}
}
