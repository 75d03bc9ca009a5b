package seccomp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/elastic/go-seccomp-bpf/arch"
	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/unix"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

// childEnv, when set, makes the test binary the filtered child: it
// installs the filter, tries everything below and writes its report to the
// file the variable names.
const childEnv = "AXON_SECCOMP_CHILD_REPORT"

// childInetEnv, set to 1, makes the child install the filter with
// Options{Inet: true}.
const childInetEnv = "AXON_SECCOMP_CHILD_INET"

func TestMain(m *testing.M) {
	if path := os.Getenv(childEnv); path != "" {
		os.Exit(child(path))
	}
	os.Exit(m.Run())
}

// harmless are arguments with which each denied call, were it let
// through, would fail or change nothing: a broken filter must not reboot
// the machine or trace the test.
var harmless = map[string][]uintptr{
	"ptrace":            {^uintptr(0)}, // no such request
	"process_vm_readv":  {0},           // no iovecs
	"process_vm_writev": {0},           // no iovecs
	"pidfd_getfd":       {^uintptr(0), ^uintptr(0), 0},
	"kcmp":              {0, 0, ^uintptr(0)}, // no such type
	"setns":             {^uintptr(0), 0},
	"unshare":           {0}, // nothing to unshare
	"mount":             {0, 0, 0, 0, 0},
	"umount2":           {0, 0},
	"pivot_root":        {0, 0},
	"chroot":            {0},
	"fsopen":            {0, 0},
	"fsconfig":          {^uintptr(0), 0, 0, 0, 0},
	"fsmount":           {^uintptr(0), 0, 0},
	"fspick":            {^uintptr(0), 0, 0},
	"open_tree":         {^uintptr(0), 0, 0},
	"open_tree_attr":    {^uintptr(0), 0, 0, 0, 0},
	"move_mount":        {^uintptr(0), 0, ^uintptr(0), 0, 0},
	"mount_setattr":     {^uintptr(0), 0, 0, 0, 0},
	"open_by_handle_at": {^uintptr(0), 0, 0},
	"name_to_handle_at": {^uintptr(0), 0, 0, 0, 0},
	"bpf":               {^uintptr(0), 0, 0}, // no such command
	"perf_event_open":   {0, 0, ^uintptr(0), ^uintptr(0), 0},
	"userfaultfd":       {^uintptr(0)}, // no such flags
	"keyctl":            {^uintptr(0)}, // no such operation
	"add_key":           {0, 0, 0, 0, 0},
	"request_key":       {0, 0, 0, 0},
	"kexec_load":        {0, 0, 0, ^uintptr(0)}, // no such flags (0 would unload)
	"kexec_file_load":   {^uintptr(0), ^uintptr(0), 0, 0, ^uintptr(0)},
	"init_module":       {0, 0, 0},
	"finit_module":      {^uintptr(0), 0, 0},
	"delete_module":     {0, 0},
	"lookup_dcookie":    {0, 0, 0},
	"io_uring_setup":    {0, 0},
	"io_uring_enter":    {^uintptr(0), 0, 0, 0, 0, 0},
	"io_uring_register": {^uintptr(0), 0, 0, 0},
	"swapon":            {0, 0},
	"swapoff":           {0},
	"reboot":            {0, 0, 0, 0},        // no magic
	"syslog":            {^uintptr(0), 0, 0}, // no such action
	"acct":              {1},                 // a bad pointer (0 would stop accounting)
	"settimeofday":      {0, 0},              // nothing to set
	"clock_settime":     {^uintptr(0), 0},    // no such clock
	"clock_adjtime":     {^uintptr(0), 0},    // no such clock
	"adjtimex":          {0},                 // a bad pointer
	"quotactl":          {0, 0, 0, 0},
	"quotactl_fd":       {^uintptr(0), 0, 0, 0},
	"vhangup":           {},           // the child has no terminal (Setsid)
	"personality":       {0xffffffff}, // the query
	"iopl":              {4},          // no such level
	"ioperm":            {0, 0, 0},    // nothing to change
}

// TestFilterInForce runs the filter for real: a child process (this test
// binary again) installs it and reports what it could and could not do.
// With Options{Inet: true} (the proxy's plugins) sockets of AF_INET and
// AF_INET6 are allowed too, and nothing else changes.
func TestFilterInForce(t *testing.T) {
	t.Parallel()
	for _, inet := range []bool{false, true} {
		t.Run(fmt.Sprintf("inet=%v", inet), func(t *testing.T) {
			t.Parallel()
			filterInForce(t, inet)
		})
	}
}

func filterInForce(t *testing.T, inet bool) {
	report := filepath.Join(t.TempDir(), "report.json")
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute) // a hang guard, not a timing claim
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0])
	cmd.Env = append(os.Environ(), childEnv+"="+report)
	if inet {
		cmd.Env = append(cmd.Env, childInetEnv+"=1")
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // no terminal for vhangup or TIOCSTI
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatalf("child wrote no report: %v\n%s", err, out)
	}
	var got map[string]string
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	// The same calls made before Install: the filter's EPERM proves nothing
	// for a call the kernel refuses with EPERM anyway, as it does many for
	// a user without capabilities. For root every one must answer otherwise.
	for _, n := range deniedNames() {
		control := got["control/"+n]
		delete(got, "control/"+n)
		if control == "EPERM" {
			if os.Geteuid() == 0 {
				t.Errorf("%s answers EPERM without the filter too: the check cannot fail", n)
			} else {
				t.Logf("%s answers EPERM without the filter too (not root)", n)
			}
		}
	}
	want := wantReport()
	if inet {
		want["socket/inet"], want["socket/inet6"], want["net.Listen tcp"] = "succeeded", "succeeded", "ok"
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("child report (-want +got):\n%s\nchild output:\n%s", diff, out)
	}
}

func deniedNames() []string { return slices.Concat(denyCommon, denyArch[runtime.GOARCH]) }

func wantReport() map[string]string {
	want := map[string]string{
		"install":            "ok",
		"status/NoNewPrivs":  "1",
		"status/Seccomp":     "2",
		"every thread":       "ok",
		"clone3":             "ENOSYS",
		"unlisted (sysinfo)": "ENOSYS",

		"socket/inet":                "EAFNOSUPPORT",
		"socket/inet6":               "EAFNOSUPPORT",
		"socket/netlink":             "EAFNOSUPPORT",
		"socket/packet":              "EAFNOSUPPORT",
		"socket/inet with high bits": "EAFNOSUPPORT",
		"socketpair/inet":            "EAFNOSUPPORT",
		"socketpair/unix":            "ok",
		"net.Listen tcp":             "EAFNOSUPPORT",

		"clone/newns":                  "EPERM",
		"clone/newcgroup":              "EPERM",
		"clone/newuts":                 "EPERM",
		"clone/newipc":                 "EPERM",
		"clone/newuser":                "EPERM",
		"clone/newpid":                 "EPERM",
		"clone/newnet":                 "EPERM",
		"clone/newtime":                "EPERM",
		"clone/newuser with high bits": "EPERM",

		"ioctl/FIONREAD":               "succeeded",
		"ioctl/TIOCSTI":                "EPERM",
		"ioctl/TIOCSTI with high bits": "EPERM",
		"ioctl/TIOCLINUX":              "EPERM",

		"go/goroutines":          "ok",
		"go/files":               "ok",
		"go/exec true":           "ok",
		"go/exec echo":           "ok",
		"go/exec in a directory": "ok",
		"go/sleep":               "ok",
		"go/json":                "ok",
		"go/unix socket":         "ok",
		"go/grpc on unix":        "ok",
	}
	for _, n := range deniedNames() {
		want["deny/"+n] = "EPERM"
	}
	return want
}

// child is the filtered half; its exit code only says whether it could
// write the report.
func child(path string) int {
	r := map[string]string{}
	// A thread that exists before Install and is parked through it: TSYNC
	// must reach it too.
	parked, release := make(chan struct{}), make(chan struct{})
	go func() {
		runtime.LockOSThread()
		close(parked)
		<-release
	}()
	<-parked
	if err := controls(r); err != nil {
		r["arch"] = err.Error()
	}

	if err := InstallWith(Options{Inet: os.Getenv(childInetEnv) == "1"}); err != nil {
		r["install"] = err.Error()
	} else {
		r["install"] = "ok"
		runChecks(r)
	}
	close(release) // the parked thread exits now: exit must be allowed too
	b, err := json.MarshalIndent(r, "", "  ")
	if err == nil {
		err = os.WriteFile(path, b, 0o600)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

func runChecks(r map[string]string) {
	info, err := arch.GetInfo(runtime.GOARCH)
	if err != nil {
		r["arch"] = err.Error()
		return
	}
	for _, k := range []string{"NoNewPrivs", "Seccomp"} {
		r["status/"+k] = statusField("/proc/self/status", k)
	}
	r["every thread"] = everyThreadFiltered()

	tryDenied(r, "deny/", info)
	r["clone3"] = try(unix.SYS_CLONE3, 0, 0)
	r["unlisted (sysinfo)"] = try(unix.SYS_SYSINFO, 0)

	for name, args := range map[string][]uintptr{
		"socket/inet":                {unix.AF_INET, unix.SOCK_STREAM, 0},
		"socket/inet6":               {unix.AF_INET6, unix.SOCK_STREAM, 0},
		"socket/netlink":             {unix.AF_NETLINK, unix.SOCK_RAW, unix.NETLINK_ROUTE},
		"socket/packet":              {unix.AF_PACKET, unix.SOCK_RAW, 0},
		"socket/inet with high bits": {1<<32 | unix.AF_INET, unix.SOCK_STREAM, 0},
	} {
		r[name] = tryFD(unix.SYS_SOCKET, args...)
	}
	var pair [2]int32
	r["socketpair/inet"] = try(unix.SYS_SOCKETPAIR, unix.AF_INET, unix.SOCK_STREAM, 0, uintptr(ptr(&pair)))
	r["socketpair/unix"] = result(func() error {
		fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err == nil {
			unix.Close(fds[0])
			unix.Close(fds[1])
		}
		return err
	})
	r["net.Listen tcp"] = result(func() error {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err == nil {
			l.Close()
		}
		return err
	})

	// CLONE_SIGHAND without CLONE_VM makes the kernel refuse the clone
	// before it looks at anything else, so a broken filter cannot fork
	// this process here.
	const sighand = unix.CLONE_SIGHAND
	for name, flag := range map[string]uintptr{
		"newns": unix.CLONE_NEWNS, "newcgroup": unix.CLONE_NEWCGROUP, "newuts": unix.CLONE_NEWUTS,
		"newipc": unix.CLONE_NEWIPC, "newuser": unix.CLONE_NEWUSER, "newpid": unix.CLONE_NEWPID,
		"newnet": unix.CLONE_NEWNET, "newtime": unix.CLONE_NEWTIME, "newuser with high bits": 1<<32 | unix.CLONE_NEWUSER,
	} {
		r["clone/"+name] = try(unix.SYS_CLONE, flag|sighand, 0, 0, 0, 0)
	}

	// A pipe is no terminal: without the filter TIOCSTI fails with ENOTTY.
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		r["ioctl/pipe"] = err.Error()
	} else {
		var n, c int32
		r["ioctl/FIONREAD"] = try(unix.SYS_IOCTL, uintptr(p[0]), unix.TIOCINQ, uintptr(ptr(&n)))
		r["ioctl/TIOCSTI"] = try(unix.SYS_IOCTL, uintptr(p[0]), unix.TIOCSTI, uintptr(ptr(&c)))
		r["ioctl/TIOCSTI with high bits"] = try(unix.SYS_IOCTL, uintptr(p[0]), 1<<32|unix.TIOCSTI, uintptr(ptr(&c)))
		r["ioctl/TIOCLINUX"] = try(unix.SYS_IOCTL, uintptr(p[0]), unix.TIOCLINUX, uintptr(ptr(&c)))
		unix.Close(p[0])
		unix.Close(p[1])
	}

	r["go/goroutines"] = result(goroutines)
	r["go/files"] = result(files)
	r["go/exec true"] = result(func() error { return exec.Command("/bin/true").Run() })
	r["go/exec echo"] = result(func() error {
		out, err := exec.Command("/bin/echo", "hello").Output()
		if err == nil && string(out) != "hello\n" {
			err = fmt.Errorf("echo printed %q", out)
		}
		return err
	})
	r["go/exec in a directory"] = result(func() error {
		cmd := exec.Command("/bin/true")
		cmd.Dir, cmd.SysProcAttr = os.TempDir(), &syscall.SysProcAttr{Setpgid: true}
		return cmd.Run()
	})
	r["go/sleep"] = result(func() error { time.Sleep(time.Millisecond); return nil })
	r["go/json"] = result(jsonRoundTrip)
	r["go/unix socket"] = result(unixSocket)
	r["go/grpc on unix"] = result(grpcOnUnix)
}

// controls makes the denied calls without the filter.
func controls(r map[string]string) error {
	info, err := arch.GetInfo(runtime.GOARCH)
	if err != nil {
		return err
	}
	tryDenied(r, "control/", info)
	return nil
}

func tryDenied(r map[string]string, prefix string, info *arch.Info) {
	for _, n := range deniedNames() {
		args, ok := harmless[n]
		if !ok {
			r[prefix+n] = "no harmless arguments to try it with"
			continue
		}
		r[prefix+n] = try(uintptr(info.SyscallNames[n]), args...)
	}
}

// try makes the call and names its errno, or "succeeded".
func try(nr uintptr, args ...uintptr) string {
	var a [6]uintptr
	copy(a[:], args)
	_, _, e := unix.Syscall6(nr, a[0], a[1], a[2], a[3], a[4], a[5])
	if e != 0 {
		return unix.ErrnoName(e)
	}
	return "succeeded"
}

// tryFD is try for a call that returns a descriptor, which it closes.
func tryFD(nr uintptr, args ...uintptr) string {
	var a [6]uintptr
	copy(a[:], args)
	fd, _, e := unix.Syscall6(nr, a[0], a[1], a[2], a[3], a[4], a[5])
	if e != 0 {
		return unix.ErrnoName(e)
	}
	unix.Close(int(fd))
	return "succeeded"
}

// result is "ok", the errno name of a failed system call, or the error.
func result(f func() error) string {
	err := f()
	if err == nil {
		return "ok"
	}
	var e syscall.Errno
	if errors.As(err, &e) {
		return unix.ErrnoName(e)
	}
	return err.Error()
}

func statusField(path, key string) string {
	f, err := os.Open(path)
	if err != nil {
		return err.Error()
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if v, ok := strings.CutPrefix(s.Text(), key+":"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "missing"
}

func everyThreadFiltered() string {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return err.Error()
	}
	var bad []string
	for _, task := range tasks {
		status := filepath.Join("/proc/self/task", task.Name(), "status")
		if nnp, mode := statusField(status, "NoNewPrivs"), statusField(status, "Seccomp"); nnp != "1" || mode != "2" {
			bad = append(bad, fmt.Sprintf("task %s: NoNewPrivs %s, Seccomp %s", task.Name(), nnp, mode))
		}
	}
	if len(tasks) < 2 {
		bad = append(bad, "only one thread: TSYNC was not exercised")
	}
	if bad != nil {
		return strings.Join(bad, "; ")
	}
	return "ok"
}

func goroutines() error {
	var wg sync.WaitGroup
	sums := make([]int, 64)
	for i := range sums {
		wg.Go(func() {
			for j := range 10000 {
				sums[i] += j % (i + 1)
			}
			runtime.Gosched()
		})
	}
	wg.Wait()
	if sums[0] != 0 || sums[1] != 5000 {
		return fmt.Errorf("goroutines computed %d and %d", sums[0], sums[1])
	}
	return nil
}

func files() error {
	dir, err := os.MkdirTemp("", "axon-seccomp")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	if err := os.WriteFile(a, []byte("note"), 0o600); err != nil {
		return err
	}
	if err := os.Rename(a, b); err != nil {
		return err
	}
	got, err := os.ReadFile(b)
	if err != nil {
		return err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	if string(got) != "note" || len(entries) != 1 {
		return fmt.Errorf("read %q, %d entries", got, len(entries))
	}
	return os.Remove(b)
}

func jsonRoundTrip() error {
	in := map[string][]int{"a": {1, 2, 3}}
	b, err := json.Marshal(in)
	if err != nil {
		return err
	}
	var out map[string][]int
	if err := json.Unmarshal(b, &out); err != nil {
		return err
	}
	if !cmp.Equal(in, out) {
		return fmt.Errorf("json round trip: %v", out)
	}
	return nil
}

func unixSocket() error {
	dir, err := os.MkdirTemp("", "axon-seccomp")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	l, err := net.Listen("unix", filepath.Join(dir, "s"))
	if err != nil {
		return err
	}
	defer l.Close()
	done := make(chan error, 1)
	go func() {
		c, err := l.Accept()
		if err != nil {
			done <- err
			return
		}
		defer c.Close()
		b := make([]byte, 1)
		if _, err := c.Read(b); err != nil {
			done <- err
			return
		}
		_, err = c.Write([]byte{b[0] + 1})
		done <- err
	}()
	c, err := net.Dial("unix", l.Addr().String())
	if err != nil {
		return err
	}
	defer c.Close()
	if _, err := c.Write([]byte{41}); err != nil {
		return err
	}
	b := make([]byte, 1)
	if _, err := c.Read(b); err != nil {
		return err
	}
	if err := <-done; err != nil {
		return err
	}
	if b[0] != 42 {
		return fmt.Errorf("got byte %d back", b[0])
	}
	return nil
}

// grpcOnUnix is what go-plugin does: a gRPC server on a unix socket and a
// client calling it.
func grpcOnUnix() error {
	dir, err := os.MkdirTemp("", "axon-seccomp")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	sock := filepath.Join(dir, "plugin.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		return err
	}
	srv := grpc.NewServer()
	healthpb.RegisterHealthServer(srv, health.NewServer())
	go srv.Serve(l)
	defer srv.Stop()

	conn, err := grpc.NewClient("unix://"+sock, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return err
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a hang guard
	defer cancel()
	resp, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{}, grpc.WaitForReady(true))
	if err != nil {
		return err
	}
	if resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		return fmt.Errorf("health: %v", resp.GetStatus())
	}
	return nil
}

func ptr[T any](p *T) unsafe.Pointer { return unsafe.Pointer(p) }
