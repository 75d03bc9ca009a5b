package sandbox

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/axonhq/axon/host/internal/testbin"
)

var binDir string

// childBinDirEnv tells a re-executed test binary where the plugin is.
const childBinDirEnv = "AXON_TEST_SANDBOX_BINDIR"

func TestMain(m *testing.M) {
	if dir := os.Getenv(childBinDirEnv); dir != "" {
		binDir = dir // a child of a test (TestHostTerminalGrant): the plugin is built
		os.Exit(m.Run())
	}
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

// rootIDs are the jail ids the tests use on a root host (what the
// supervisor gives its first instance); unprivileged, the host's own.
func rootIDs() IDs {
	if os.Geteuid() == 0 {
		return IDs{UID: 1879048192, GID: 1879048192, Set: true}
	}
	return IDs{}
}

func TestLayersInForce(t *testing.T) {
	t.Parallel()
	var who struct {
		UID, GID, PID, PPID int
		Groups              []int
		Hostname            string
		Status              map[string]string
		Root                []string
	}
	if err := json.Unmarshal([]byte(probe(t, Jail{Name: "who", IDs: rootIDs()}, "whoami")), &who); err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{"CapEff": "0000000000000000", "CapPrm": "0000000000000000", "CapBnd": "0000000000000000",
		"CapAmb": "0000000000000000", "NoNewPrivs": "1", "Seccomp": "2"} {
		if who.Status[k] != v {
			t.Errorf("%s = %q, want %q", k, who.Status[k], v)
		}
	}
	if who.PID != 1 || who.PPID != 0 || who.Hostname != "axon-plugin" {
		t.Errorf("pid %d, ppid %d, hostname %q", who.PID, who.PPID, who.Hostname)
	}
	if os.Geteuid() == 0 && (who.UID != 1 || who.GID != 1 || len(who.Groups) != 0) {
		t.Errorf("uid %d gid %d groups %v: want the jail's own ids 1/1 and no supplementary group", who.UID, who.GID, who.Groups)
	}
	// Only the basics, the binary and /tmp; never the host's /home, /root,
	// /var, /run, /etc beyond certificates and time zone.
	for _, d := range who.Root {
		switch d {
		case "dev", "etc", "lib", "lib64", "lib32", "proc", "tmp", "usr", "plugin":
		default:
			t.Errorf("/%s is visible in the jail", d)
		}
	}
}

func TestGrants(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	rw, ro, hidden := filepath.Join(base, "rw"), filepath.Join(base, "ro"), filepath.Join(base, "hidden")
	for _, d := range []string{ro, hidden} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "f"), []byte("content of "+filepath.Base(d)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	j := Jail{Name: "grants", IDs: rootIDs(), Grants: []Grant{
		{Path: rw, Mode: ReadWrite, Owner: true}, {Path: ro, Mode: ReadOnly},
	}}
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"write", filepath.Join(rw, "note")}, "ESCAPED: created"}, // granted: the plugin may write here
		{[]string{"open", filepath.Join(ro, "f")}, "ESCAPED: read"},        // granted: and read here
		{[]string{"write", filepath.Join(ro, "new")}, "blocked: "},
		{[]string{"write", filepath.Join(ro, "f")}, "blocked: "},
		{[]string{"open", filepath.Join(hidden, "f")}, "blocked: "},
		{[]string{"open", base}, "ESCAPED: listed directory"}, // the parent exists inside, empty but for the grants
	}
	for _, tc := range tests {
		if out := probe(t, j, tc.args...); !strings.HasPrefix(out, tc.want) {
			t.Errorf("%v: %q, want %q…", tc.args, out, tc.want)
		}
	}
	if out := probe(t, j, "open", base); strings.Contains(out, "hidden") {
		t.Errorf("the jail shows an ungranted sibling: %s", out)
	}
	b, err := os.ReadFile(filepath.Join(rw, "note"))
	if err != nil || string(b) != "hostile" {
		t.Fatalf("the write to the read-write grant did not reach the host: %q %v", b, err)
	}
	if os.Geteuid() == 0 {
		st, _ := os.Stat(filepath.Join(rw, "note"))
		if uid := st.Sys().(*syscall.Stat_t).Uid; uid != 1879048192 {
			t.Errorf("the plugin's file belongs to host uid %d, want its own", uid)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(ro, "f")); string(b) != "content of ro" {
		t.Errorf("the read-only grant changed: %q", b)
	}
}

// TestDeviceGrant: a root host opens a granted device node for its plugin
// through the node's group, and only that node.
func TestDeviceGrant(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("making a device node needs root")
	}
	t.Parallel()
	dir := t.TempDir()
	node := filepath.Join(dir, "fake-spidev0.0")
	if err := unix.Mknod(node, unix.S_IFCHR|0o660, int(unix.Mkdev(1, 5))); err != nil { // the /dev/zero driver
		t.Fatal(err)
	}
	if err := os.Chown(node, 0, 4242); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(node, 0o660); err != nil { // past the umask
		t.Fatal(err)
	}
	j := Jail{Name: "dev", IDs: rootIDs(), Grants: []Grant{{Path: node, Mode: Device}}}
	if out := probe(t, j, "open", node); !strings.HasPrefix(out, "ESCAPED: read") {
		t.Fatalf("granted device: %q", out)
	}
	if out := probe(t, Jail{Name: "dev", IDs: rootIDs()}, "open", node); !strings.HasPrefix(out, "blocked: ") {
		t.Fatalf("ungranted device: %q", out)
	}
	if err := os.Chown(node, 0, 0); err != nil {
		t.Fatal(err)
	}
	j.Binary, j.SocketDir = filepath.Join(binDir, "hostile"), t.TempDir()
	if _, err := j.Command(); err == nil || !strings.Contains(err.Error(), "group") {
		t.Fatalf("a root-group device was granted: %v", err)
	}
}

// TestOnlyStdioReachesThePlugin: nothing the host passed to the init (the
// binary, the status pipe) is open in the plugin.
func TestOnlyStdioReachesThePlugin(t *testing.T) {
	t.Parallel()
	var who struct{ FDs map[string]string }
	if err := json.Unmarshal([]byte(probe(t, Jail{Name: "fds", IDs: rootIDs()}, "whoami")), &who); err != nil {
		t.Fatal(err)
	}
	for fd, what := range who.FDs {
		switch {
		case fd == "0" || fd == "1" || fd == "2":
		case strings.HasPrefix(what, "anon_inode:"):
			// the Go runtime's poller
		case strings.HasPrefix(what, "error: ") && strings.HasSuffix(what, "no such file or directory"):
			// the listing's own descriptor, closed once read
		default:
			t.Errorf("descriptor %s in the plugin is %s", fd, what)
		}
	}
	if len(who.FDs) == 0 {
		t.Fatal("no descriptors listed")
	}
}

// TestFailedLayerIsNamed: the init reports which layer it could not build,
// and the plugin never runs.
func TestFailedLayerIsNamed(t *testing.T) {
	t.Parallel()
	gone := filepath.Join(t.TempDir(), "gone")
	if err := os.Mkdir(gone, 0o755); err != nil {
		t.Fatal(err)
	}
	j := Jail{Name: "fail", IDs: rootIDs(), Binary: filepath.Join(binDir, "hostile"), SocketDir: t.TempDir(),
		Grants: []Grant{{Path: gone, Mode: ReadOnly}}, Args: []string{"probe", "whoami"}}
	p, err := j.Command()
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(gone) // after the host's checks, before the init binds it
	var out bytes.Buffer
	p.Cmd.Stdout = &out
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	p.Cmd.Wait()
	err = p.Failure()
	if err == nil || !strings.HasPrefix(err.Error(), "sandbox: mount: grant "+gone) {
		t.Fatalf("failure = %v", err)
	}
	if out.Len() != 0 {
		t.Fatalf("the plugin ran although its jail failed: %s", out.String())
	}
}

// TestSwappedBinaryIsRefused: the pin is checked on the opened file, and a
// file renamed over the path afterwards is never executed.
func TestSwappedBinaryIsRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bin := filepath.Join(dir, "plugin")
	if err := copyFile(filepath.Join(binDir, "hostile"), bin); err != nil {
		t.Fatal(err)
	}
	sum := fileSum(t, bin)
	if _, err := (&Jail{Name: "pin", Binary: bin, SocketDir: t.TempDir(), SHA256: make([]byte, 32)}).Command(); !errors.Is(err, ErrChecksum) {
		t.Fatalf("wrong pin: %v", err)
	}
	j := Jail{Name: "swap", IDs: rootIDs(), Binary: bin, SHA256: sum, SocketDir: t.TempDir(), Args: []string{"probe", "whoami"}}
	p, err := j.Command()
	if err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "other")
	if err := os.WriteFile(other, []byte("#!/bin/sh\necho swapped\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(other, bin); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	p.Cmd.Stdout = &out
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	p.Cmd.Wait()
	if err := p.Failure(); err == nil || !strings.Contains(err.Error(), "replaced after the host checked it") {
		t.Fatalf("failure = %v, output %q", err, out.String())
	}
}

func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o755)
}

func fileSum(t *testing.T, path string) []byte {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := sha256.Sum256(b)
	return s[:]
}

// TestLoopback: a jail with Loopback may listen on and connect to its own
// 127.0.0.1 (the proxy's listener), and still reaches nothing of the
// host's: a listener on the host's loopback is out of reach. Without it,
// no IPv4 socket opens at all.
func TestLoopback(t *testing.T) {
	t.Parallel()
	host, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	go func() {
		for {
			c, err := host.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("host secret"))
			c.Close()
		}
	}()
	with := Jail{Name: "lo", IDs: rootIDs(), Loopback: true}
	if out := probe(t, with, "loopback"); !strings.HasPrefix(out, "loopback: listened on and connected to 127.0.0.1:") {
		t.Errorf("with Loopback: %s", out)
	}
	if out := probe(t, with, "dial-tcp", host.Addr().String()); !strings.HasPrefix(out, "blocked: ") {
		t.Errorf("with Loopback the host's own loopback listener was reached: %s", out)
	}
	if out := probe(t, Jail{Name: "nolo", IDs: rootIDs()}, "loopback"); !strings.HasPrefix(out, "blocked: listen: ") || !strings.Contains(out, "address family not supported") {
		t.Errorf("without Loopback: %s", out)
	}
}
