package sandbox

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/axonhq/axon/host/internal/testbin"
)

var binDir string

func TestMain(m *testing.M) {
	testbin.Main(m, &binDir, testbin.Target{Name: "hostile", Pkg: "../internal/testplugin"})
}

// probe runs the hostile plugin's standalone probe mode in a jail and
// returns what it printed.
func probe(t *testing.T, j Jail, args ...string) string {
	t.Helper()
	if j.Binary == "" {
		j.Binary = filepath.Join(binDir, "hostile")
	}
	if j.SocketDir == "" {
		j.SocketDir = t.TempDir()
	}
	j.Args = append([]string{"probe"}, args...)
	p, err := j.Command()
	if err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	p.Cmd.Stdout, p.Cmd.Stderr = &out, &errb
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	werr := p.Cmd.Wait()
	if f := p.Failure(); f != nil {
		t.Fatalf("jail: %v", f)
	}
	if werr != nil {
		t.Fatalf("probe %v: %v\nstdout: %s\nstderr: %s", args, werr, out.String(), errb.String())
	}
	return out.String()
}

func TestWhoami(t *testing.T) {
	ids := IDs{}
	if os.Geteuid() == 0 {
		ids = IDs{UID: 1879048192, GID: 1879048192, Set: true}
	}
	t.Log(probe(t, Jail{Name: "who", IDs: ids}, "whoami"))
}
