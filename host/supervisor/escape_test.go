package supervisor

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/axonhq/axon/hcl/credref"
	"github.com/axonhq/axon/host/egress"
	"github.com/axonhq/axon/host/internal/logbuf"
	"github.com/axonhq/axon/host/sandbox"
	"github.com/axonhq/axon/sdk"
)

// The escape suite runs in a re-executed copy of this test binary, so that
// the key is in the host's real initial environment (/proc/<pid>/environ),
// once as root and once as nobody: the two ways axon serve runs.
const (
	escapeSecretEnv = "AXON_TEST_ESCAPE_SECRET"
	escapeModeEnv   = "AXON_TEST_ESCAPE_MODE"   // "suite" or "hold"
	escapeSubUIDEnv = "AXON_TEST_ESCAPE_SUBUID" // the first subordinate uid the child's plugins must get
)

func TestEscapesFailAsRoot(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the root half needs root; TestEscapesFailUnprivileged runs as whoever runs the tests")
	}
	reexec(t, nil, "suite", "^TestEscapeSuite$")
}

func TestEscapesFailUnprivileged(t *testing.T) {
	if os.Geteuid() != 0 {
		reexec(t, nil, "suite", "^TestEscapeSuite$") // already unprivileged
		return
	}
	nobody := uint32(65534)
	reexec(t, &nobody, "suite", "^TestEscapeSuite$")
}

// TestEscapesFailWithSubordinateIDs: an unprivileged host whose user has
// /etc/subuid and /etc/subgid ranges runs each plugin under subordinate ids
// of its own (newuidmap/newgidmap), and every escape still fails. The child
// runs as nobody in a private mount namespace whose /etc/subuid and
// /etc/subgid give nobody a range, so the machine's own files are untouched.
func TestEscapesFailWithSubordinateIDs(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the child needs root to mount its own /etc/subuid")
	}
	for _, tool := range []string{"newuidmap", "newgidmap", "unshare", "setpriv"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is not installed: make test installs uidmap (newuidmap) and util-linux", tool)
		}
	}
	const first = 3000000
	dir := t.TempDir()
	os.Chmod(dir, 0o755)
	for _, f := range []string{"subuid", "subgid"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(fmt.Sprintf("nobody:%d:65536\n", first)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	exe := selfCopy(t)
	script := `mount --bind "$1/subuid" /etc/subuid && mount --bind "$1/subgid" /etc/subgid && shift && exec setpriv --reuid=65534 --regid=65534 --clear-groups "$@"`
	cmd := exec.Command("unshare", "--mount", "--propagation", "private", "sh", "-c", script, "sh", dir,
		exe, "-test.run=^TestEscapeSuite$", "-test.v", "-test.count=1")
	cmd.Env = []string{childBinDirEnv + "=" + binDir, "HOME=/tmp", "TMPDIR=/tmp", "PATH=/usr/sbin:/usr/bin:/sbin:/bin",
		escapeModeEnv + "=suite", escapeSecretEnv + "=" + newSecret(t), escapeSubUIDEnv + "=" + strconv.Itoa(first)}
	cmd.Dir = "/tmp"
	for _, f := range []string{"/etc/subuid", "/etc/subgid"} {
		if _, err := os.Stat(f); err != nil { // a bind mount needs something to cover
			if err := os.WriteFile(f, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.Remove(f) })
		}
	}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestEscapeSuite") {
		t.Fatalf("child (nobody, subordinate ids): %v\n%s", err, out)
	}
	t.Logf("child:\n%s", out)
}

// reexec runs this test binary's test named by run as uid (nil: as now),
// with a fresh secret in its environment, and fails with its output
// unless it passed.
func reexec(t *testing.T, uid *uint32, mode, run string) {
	t.Helper()
	exe := selfCopy(t)
	cmd := exec.Command(exe, "-test.run="+run, "-test.v", "-test.count=1")
	cmd.Env = []string{childBinDirEnv + "=" + binDir, "HOME=/tmp", "TMPDIR=/tmp",
		escapeModeEnv + "=" + mode, escapeSecretEnv + "=" + newSecret(t)}
	cmd.Dir = "/tmp"
	if uid != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: *uid, Gid: *uid}}
	}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: "+strings.Trim(run, "^$")) {
		t.Fatalf("child (uid %v): %v\n%s", uid, err, out)
	}
	t.Logf("child:\n%s", out)
}

// selfCopy puts this test binary next to the plugins, where an
// unprivileged child may run it (go test's build directory is private).
func selfCopy(t *testing.T) string {
	t.Helper()
	exe := filepath.Join(binDir, "supervisor.test")
	if _, err := os.Stat(exe); err == nil {
		return exe
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := copyFile(self, exe); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(binDir, 0o755); err != nil {
		t.Fatal(err)
	}
	return exe
}

func newSecret(t *testing.T) string {
	b := make([]byte, 12)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return "sk-escape-" + hex.EncodeToString(b)
}

// hostSecrets are the things a plugin must never reach: a credential file
// of another block, the token, the vault, a WAL, the config file and the
// front door's unix socket, all holding the key.
type hostSecrets struct {
	dir                                       string
	keyFile, token, vault, wal, config, front string
	keyFD                                     int
}

func plantSecrets(t *testing.T, secret string) *hostSecrets {
	dir := t.TempDir()
	h := &hostSecrets{dir: dir,
		keyFile: filepath.Join(dir, "other.key"), token: filepath.Join(dir, "token"),
		vault: filepath.Join(dir, "vault.json"), wal: filepath.Join(dir, "sessions", "s1.wal"),
		config: filepath.Join(dir, "axon.hcl"), front: filepath.Join(dir, "axon.sock"),
	}
	for _, p := range []string{h.keyFile, h.token, h.vault, h.wal, h.config} {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(secret+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	f, err := os.Open(h.keyFile)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	h.keyFD = int(f.Fd())
	l, err := net.Listen("unix", h.front)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, secret) })}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	return h
}

// listeners that hand the key to whoever reaches them, and count who did.
type bait struct {
	tcp, udp, abstract string
	reached            atomic.Int32
}

func setBait(t *testing.T, secret string) *bait {
	b := &bait{}
	tl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tl.Close() })
	b.tcp = tl.Addr().String()
	serve := func(l net.Listener) {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			b.reached.Add(1)
			io.WriteString(c, secret)
			c.Close()
		}
	}
	go serve(tl)
	al, err := net.Listen("unix", "@axon-escape-"+strconv.Itoa(os.Getpid()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { al.Close() })
	b.abstract = strings.TrimPrefix(al.Addr().String(), "@")
	go serve(al)
	ul, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ul.Close() })
	b.udp = ul.LocalAddr().String()
	go func() {
		buf := make([]byte, 64)
		for {
			if _, _, err := ul.ReadFrom(buf); err != nil {
				return
			}
			b.reached.Add(1)
		}
	}()
	return b
}

// TestEscapeSuite is the child half: every attack the hostile plugin knows,
// against a plugin whose block holds a real credential, beside a victim.
func TestEscapeSuite(t *testing.T) {
	secret := os.Getenv(escapeSecretEnv)
	if secret == "" || os.Getenv(escapeModeEnv) != "suite" {
		t.Skip("helper: runs only in the child that TestEscapesFailAsRoot / TestEscapesFailUnprivileged start")
	}
	if err := sandbox.HardenHost(); err != nil { // as axon does first thing
		t.Fatal(err)
	}
	host := plantSecrets(t, secret)
	lure := setBait(t, secret)
	var seen atomic.Value
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen.Store(r.Header.Get("Authorization"))
		io.WriteString(w, "upstream-ok")
	}))
	defer up.Close()
	al, err := egress.NewAllowList(up.URL)
	if err != nil {
		t.Fatal(err)
	}
	logs := &logbuf.Buffer{}
	s := newSupervisor(t, logs, Options{})
	grant := &egress.Grant{Allow: al, Inject: al, Auth: sdk.Auth{Scheme: sdk.AuthBearer}, AuthSet: true, Credential: credref.MustParse("file:" + host.keyFile)}
	if err := s.Add(Spec{Name: "evil", Kind: sdk.KindProvider, Path: bin("hostile"), Egress: grant}); err != nil {
		t.Fatal(err)
	}
	if err := s.Add(Spec{Name: "victim", Kind: sdk.KindProvider, Path: bin("echo")}); err != nil {
		t.Fatal(err)
	}
	evil, _ := s.Instance("evil")
	victim, _ := s.Instance("victim")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	var transcript []string
	say := func(in *Instance, cmd string) string {
		t.Helper()
		_, text, err := collect(ctx, in, cmd)
		if err != nil {
			t.Fatalf("%s: %v", cmd, err)
		}
		transcript = append(transcript, text)
		return text
	}
	// A kernel that refuses an unprivileged user namespace must refuse the
	// plugin with an error that says so, and run nothing unsandboxed.
	if err := evil.Start(ctx); err != nil && os.Geteuid() != 0 {
		if !strings.Contains(err.Error(), "sandbox: user: cannot create its namespaces") || !strings.Contains(err.Error(), `sandbox = "none"`) || evil.Pid() != 0 {
			t.Fatalf("the sandbox was refused with an unclear error: %v", err)
		}
		t.Logf("this kernel gives no user namespace to uid %d; the plugin was refused as it must be: %v", os.Geteuid(), err)
		return
	}
	// The plugin's egress works: the sandbox does not cut the one way out.
	if out := say(evil, "get "+up.URL+"/v1"); !strings.HasPrefix(out, "status 200") {
		t.Fatalf("egress through the sandbox: %q", out)
	}
	if got, _ := seen.Load().(string); got != "Bearer "+secret {
		t.Fatal("the upstream did not get the block's credential through the egress")
	}

	me := strconv.Itoa(os.Getpid())
	attacks := [][]string{
		{"proc-environ", me}, {"proc-mem", me}, {"proc-all-environ"}, {"ptrace", me}, {"vmread", me},
		{"pidfd-getfd", me, strconv.Itoa(host.keyFD)}, {"setns-net", me, lure.tcp},
		{"dial-tcp", lure.tcp}, {"dial-udp", lure.udp}, {"raw-socket"}, {"abstract-unix", lure.abstract},
		{"kill", me},
		{"open", host.keyFile}, {"open", host.token}, {"open", host.vault}, {"open", host.wal}, {"open", host.config},
		{"open", host.dir}, {"open", "/proc/" + me + "/environ"},
		{"write", filepath.Join(binDir, "evil")}, {"write", bin("echo")}, {"write", bin("hostile")},
		{"unix-connect", host.front}, {"unshare"}, {"mount"},
	}
	for _, a := range attacks {
		t.Run(strings.Join(a, " "), func(t *testing.T) {
			out := say(evil, "attack "+strings.Join(a, " "))
			if !strings.HasPrefix(out, "blocked: ") {
				t.Errorf("%s", out)
			}
		})
	}
	// Host-wide kernel settings: swappiness refuses the text "hostile" even
	// where it is writable, so only a refused open counts.
	if out := say(evil, "attack write /proc/sys/vm/swappiness"); !strings.Contains(out, "permission denied") && !strings.Contains(out, "read-only file system") {
		t.Errorf("/proc/sys is writable from the jail: %s", out)
	}
	if n := lure.reached.Load(); n != 0 {
		t.Errorf("host listeners were reached %d times", n)
	}
	if _, err := os.Stat(filepath.Join(binDir, "evil")); err == nil {
		t.Error("the plugin created a file in the plugin directory")
	}
	for _, b := range []string{bin("echo"), bin("hostile")} {
		if data, err := os.ReadFile(b); err != nil || strings.HasPrefix(string(data), "hostile") {
			t.Errorf("%s was overwritten (%v)", b, err)
		}
	}

	t.Run("layers in force", func(t *testing.T) {
		var who struct {
			UID, PID, PPID int
			Hostname       string
			Status         map[string]string
		}
		if err := json.Unmarshal([]byte(say(evil, "attack whoami")), &who); err != nil {
			t.Fatal(err)
		}
		want := map[string]string{"CapEff": "0000000000000000", "CapPrm": "0000000000000000", "CapBnd": "0000000000000000",
			"CapAmb": "0000000000000000", "NoNewPrivs": "1", "Seccomp": "2"}
		for k, v := range want {
			if who.Status[k] != v {
				t.Errorf("%s = %q, want %q", k, who.Status[k], v)
			}
		}
		if who.PID != 1 || who.PPID != 0 || who.Hostname != "axon-plugin" {
			t.Errorf("pid %d ppid %d hostname %q: want pid 1 of its own PID namespace, ppid 0, hostname axon-plugin", who.PID, who.PPID, who.Hostname)
		}
		hostUID := hostUIDOf(t, evil.Pid())
		if os.Geteuid() == 0 && hostUID == 0 {
			t.Error("a root host's plugin runs as host root")
		}
		if os.Geteuid() == 0 && hostUID != DefaultIDRange.First {
			t.Errorf("the first instance runs as host uid %d, want %d", hostUID, DefaultIDRange.First)
		}
		if os.Geteuid() != 0 {
			want := os.Geteuid() // no subordinate ids: the host's own, inside its namespace
			if sub, err := sandbox.LookupSubIDs(); err == nil {
				want = sub.UID // the first instance's subordinate uid
			}
			if env := os.Getenv(escapeSubUIDEnv); env != "" {
				if n, _ := strconv.Atoi(env); n != want {
					t.Fatalf("the child was given subordinate uid %s but finds %d", env, want)
				}
			}
			if hostUID != want {
				t.Errorf("an unprivileged host runs its first plugin as uid %d, want %d", hostUID, want)
			}
		}
		t.Logf("plugin: %+v, host uid %d, layers %s", who, hostUID, evil.Layers())
	})

	t.Run("setsid grandchild dies with the plugin", func(t *testing.T) {
		token := "axon-escape-" + hex.EncodeToString([]byte(secret[len(secret)-6:]))
		if out := say(evil, "attack grandchild "+token); !strings.HasPrefix(out, "spawned: ") {
			t.Fatalf("grandchild: %q", out)
		}
		pids := findCmdline(t, token)
		if len(pids) == 0 {
			t.Fatal("the grandchild is not running: the attack proves nothing")
		}
		waits := pidfds(t, pids)
		s.Close()
		for _, w := range waits {
			w(t)
		}
	})

	t.Run("no key anywhere", func(t *testing.T) {
		all := strings.Join(transcript, "\n") + logs.String()
		if strings.Contains(all, secret) {
			t.Fatal("the key appears in what the plugin said or in the host log")
		}
	})

	// After all of it, a second supervisor's victim still answers (the
	// first was closed by the grandchild check).
	s2 := newSupervisor(t, &logbuf.Buffer{}, Options{})
	s2.Add(Spec{Name: "victim", Kind: sdk.KindProvider, Path: bin("echo")})
	v2, _ := s2.Instance("victim")
	_ = victim
	if _, out, err := collect(ctx, v2, "still answering"); err != nil || out != "still answering" {
		t.Fatalf("victim: %q %v", out, err)
	}
}

// TestVictimAnswersBesideHostile: a hostile plugin hammering the sandbox
// never stops the other plugins of the same host from answering.
func TestVictimAnswersBesideHostile(t *testing.T) {
	t.Parallel()
	s := newSupervisor(t, &logbuf.Buffer{}, Options{})
	s.Add(Spec{Name: "evil", Kind: sdk.KindProvider, Path: bin("hostile")})
	s.Add(Spec{Name: "victim", Kind: sdk.KindProvider, Path: bin("echo")})
	evil, _ := s.Instance("evil")
	victim, _ := s.Instance("victim")
	ctx := context.Background()
	for _, a := range []string{"proc-all-environ", "unshare", "mount", "raw-socket"} {
		if _, out, err := collect(ctx, evil, "attack "+a); err != nil || !strings.HasPrefix(out, "blocked: ") {
			t.Errorf("%s: %q %v", a, out, err)
		}
		if _, out, err := collect(ctx, victim, "still here"); err != nil || out != "still here" {
			t.Fatalf("victim after %s: %q %v", a, out, err)
		}
	}
}

// hostUIDOf reads the real uid of a host process.
func hostUIDOf(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[0] == "Uid:" {
			uid, _ := strconv.Atoi(f[1])
			return uid
		}
	}
	t.Fatal("no Uid line")
	return -1
}

// findCmdline lists host pids whose command line holds token.
func findCmdline(t *testing.T, token string) []int {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && strings.Contains(string(b), token) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// pidfds opens a pidfd on each pid now, and returns waits that block until
// that process has exited: an event, not a poll of /proc.
func pidfds(t *testing.T, pids []int) []func(*testing.T) {
	t.Helper()
	var waits []func(*testing.T)
	for _, pid := range pids {
		fd, err := unix.PidfdOpen(pid, 0)
		if err != nil {
			t.Fatalf("pidfd_open %d: %v", pid, err)
		}
		waits = append(waits, func(t *testing.T) {
			defer unix.Close(fd)
			fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
			n, err := unix.Poll(fds, 10_000) // hang guard
			if err != nil || n == 0 {
				t.Errorf("pid %d still runs 10s after the host let go of its plugin", pid)
			}
		})
	}
	return waits
}

// TestGrandchildDiesWithKilledHost: SIGKILL of the host leaves nothing of a
// plugin behind, not even a setsid grandchild.
func TestGrandchildDiesWithKilledHost(t *testing.T) {
	t.Parallel()
	exe := selfCopy(t)
	token := "axon-orphan-" + strconv.Itoa(os.Getpid())
	cmd := exec.Command(exe, "-test.run=^TestHoldGrandchild$", "-test.count=1")
	cmd.Env = []string{childBinDirEnv + "=" + binDir, "HOME=/tmp", "TMPDIR=/tmp", escapeModeEnv + "=hold", escapeSecretEnv + "=" + token}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	sc := bufio.NewScanner(stdout)
	ready := false
	for sc.Scan() {
		if sc.Text() == "READY" {
			ready = true
			break
		}
	}
	if !ready {
		cmd.Wait()
		t.Fatal("the host child never started its plugin's grandchild")
	}
	pids := findCmdline(t, token)
	if len(pids) == 0 {
		t.Fatal("no grandchild found")
	}
	waits := pidfds(t, pids)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	for _, w := range waits {
		w(t)
	}
}

// TestHoldGrandchild is the host child: it starts the hostile plugin, has
// it leave a grandchild, says READY and waits to be killed.
func TestHoldGrandchild(t *testing.T) {
	if os.Getenv(escapeModeEnv) != "hold" {
		t.Skip("helper: runs only in the child that TestGrandchildDiesWithKilledHost starts")
	}
	s := New(nullLogger(), Options{})
	s.Add(Spec{Name: "evil", Kind: sdk.KindProvider, Path: bin("hostile")})
	in, _ := s.Instance("evil")
	_, out, err := collect(context.Background(), in, "attack grandchild "+os.Getenv(escapeSecretEnv))
	if err != nil || !strings.HasPrefix(out, "spawned: ") {
		t.Fatalf("%q %v", out, err)
	}
	fmt.Println("READY")
	select {}
}
