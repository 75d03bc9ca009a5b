package seccomp

import (
	"encoding/binary"
	"fmt"
	"runtime"
	"slices"
	"testing"

	seccompbpf "github.com/elastic/go-seccomp-bpf"
	"github.com/elastic/go-seccomp-bpf/arch"
	"github.com/google/go-cmp/cmp"
	"golang.org/x/net/bpf"
)

// TestPolicyBothArches builds the policy for each architecture a plugin
// runs on. Every name is checked against that architecture's table (what
// assembling there would reject); the host's own is also assembled.
func TestPolicyBothArches(t *testing.T) {
	t.Parallel()
	for _, goarch := range []string{"amd64", "arm64"} {
		t.Run(goarch, func(t *testing.T) {
			t.Parallel()
			p, err := Policy(goarch)
			if err != nil {
				t.Fatal(err)
			}
			if goarch != runtime.GOARCH {
				return // the library assembles only for the running architecture
			}
			prog, err := assemble(p, allowIf)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := bpf.Assemble(prog); err != nil {
				t.Fatal(err)
			}
			if len(prog) > 4096 { // BPF_MAXINSNS: the kernel refuses longer filters
				t.Errorf("the filter has %d instructions, more than the kernel takes", len(prog))
			}
		})
	}
	if _, err := Policy("riscv64"); err == nil {
		t.Error("Policy(riscv64) succeeded; a plugin there would run under a filter nobody derived")
	}
}

// TestListsDisjoint: a name both allowed and denied would be denied (the
// deny group comes first) but still be printed by Allowed.
func TestListsDisjoint(t *testing.T) {
	t.Parallel()
	for _, goarch := range []string{"amd64", "arm64"} {
		denied := slices.Concat(denyCommon, denyArch[goarch], []string{"clone3"})
		for _, n := range allowed(goarch) {
			if slices.Contains(denied, n) {
				t.Errorf("%s: %q is both allowed and denied", goarch, n)
			}
		}
		if a := allowed(goarch); !slices.IsSorted(a) || len(slices.Compact(slices.Clone(a))) != len(a) {
			t.Errorf("%s: allowed list is not sorted and unique: %v", goarch, a)
		}
	}
}

func TestAllowedIsTheHostList(t *testing.T) {
	t.Parallel()
	if diff := cmp.Diff(allowed(runtime.GOARCH), Allowed()); diff != "" {
		t.Error(diff)
	}
	for _, must := range []string{"futex", "epoll_pwait", "execveat", "socket", "clone", "ioctl", "restart_syscall"} {
		if !slices.Contains(Allowed(), must) {
			t.Errorf("Allowed() lacks %q", must)
		}
	}
}

type decisionCase struct {
	name string
	call string
	args []uint64
	abi  uint32 // audit arch; 0: the host's
	nr   int    // used when call is ""
	want string
}

// TestDecisions runs the assembled program in a BPF interpreter over the
// seccomp_data the kernel would hand it, for the calls whose arguments
// matter and for the ways around the filter a hostile plugin would try.
func TestDecisions(t *testing.T) {
	t.Parallel()
	p, err := Policy(runtime.GOARCH)
	if err != nil {
		t.Fatal(err)
	}
	prog, err := assemble(p, allowIf)
	if err != nil {
		t.Fatal(err)
	}
	vm, err := bpf.NewVM(prog)
	if err != nil {
		t.Fatal(err)
	}
	info, err := arch.GetInfo(runtime.GOARCH)
	if err != nil {
		t.Fatal(err)
	}
	const (
		allow = "allow"
		high  = uint64(1) << 32
	)
	cases := []decisionCase{
		{name: "read", call: "read", want: allow},
		{name: "futex", call: "futex", want: allow},
		{name: "ptrace", call: "ptrace", want: "EPERM"},
		{name: "unshare", call: "unshare", want: "EPERM"},
		{name: "personality query", call: "personality", args: []uint64{0xffffffff}, want: "EPERM"},
		{name: "io_uring", call: "io_uring_setup", want: "EPERM"},
		{name: "clone3", call: "clone3", want: "ENOSYS"},
		{name: "unlisted", call: "sysinfo", want: "ENOSYS"},
		{name: "beyond the table", nr: 1000, want: "ENOSYS"},
		{name: "i386 abi", call: "read", abi: uint32(arch.I386.ID), want: "ENOSYS"},

		{name: "socket unix", call: "socket", args: []uint64{1}, want: allow},
		{name: "socket inet", call: "socket", args: []uint64{2}, want: "EAFNOSUPPORT"},
		{name: "socket inet6", call: "socket", args: []uint64{10}, want: "EAFNOSUPPORT"},
		{name: "socket netlink", call: "socket", args: []uint64{16}, want: "EAFNOSUPPORT"},
		{name: "socket packet", call: "socket", args: []uint64{17}, want: "EAFNOSUPPORT"},
		{name: "socket unix with high bits", call: "socket", args: []uint64{high | 1}, want: "EAFNOSUPPORT"},
		{name: "socketpair unix", call: "socketpair", args: []uint64{1}, want: allow},
		{name: "socketpair inet", call: "socketpair", args: []uint64{2}, want: "EAFNOSUPPORT"},

		// CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_SYSVSEM|CLONE_THREAD: a Go thread.
		{name: "clone thread", call: "clone", args: []uint64{0x50f00}, want: allow},
		// CLONE_VM|CLONE_VFORK|SIGCHLD: os/exec.
		{name: "clone vfork", call: "clone", args: []uint64{0x4111}, want: allow},
		{name: "clone newns", call: "clone", args: []uint64{0x20000}, want: "EPERM"},
		{name: "clone newcgroup", call: "clone", args: []uint64{0x02000000}, want: "EPERM"},
		{name: "clone newuts", call: "clone", args: []uint64{0x04000000}, want: "EPERM"},
		{name: "clone newipc", call: "clone", args: []uint64{0x08000000}, want: "EPERM"},
		{name: "clone newuser", call: "clone", args: []uint64{0x10000000 | 0x11}, want: "EPERM"},
		{name: "clone newpid", call: "clone", args: []uint64{0x20000000}, want: "EPERM"},
		{name: "clone newnet", call: "clone", args: []uint64{0x40000000}, want: "EPERM"},
		{name: "clone newtime", call: "clone", args: []uint64{0x80}, want: "EPERM"},
		{name: "clone newuser with high bits", call: "clone", args: []uint64{high | 0x10000000}, want: "EPERM"},

		{name: "ioctl tcgets", call: "ioctl", args: []uint64{1, 0x5401}, want: allow},
		{name: "ioctl spi message", call: "ioctl", args: []uint64{3, 0x40206b00}, want: allow},
		{name: "ioctl gpio v2 line", call: "ioctl", args: []uint64{3, 0xc250b407}, want: allow},
		{name: "ioctl tiocsti", call: "ioctl", args: []uint64{0, tiocsti}, want: "EPERM"},
		{name: "ioctl tiocsti with high bits", call: "ioctl", args: []uint64{0, high | tiocsti}, want: "EPERM"},
		{name: "ioctl tioclinux", call: "ioctl", args: []uint64{0, tioclinux}, want: "EPERM"},
	}
	if runtime.GOARCH == "amd64" {
		cases = append(cases, decisionCase{name: "x32 abi", nr: info.SyscallNames["read"] | 0x40000000, want: "ENOSYS"})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			nr := c.nr
			if c.call != "" {
				var ok bool
				if nr, ok = info.SyscallNames[c.call]; !ok {
					t.Fatalf("%s has no %s", info.Name, c.call)
				}
			}
			abi := c.abi
			if abi == 0 {
				abi = uint32(info.ID)
			}
			ret, err := vm.Run(seccompData(nr, abi, c.args))
			if err != nil {
				t.Fatal(err)
			}
			if got := decision(uint32(ret)); got != c.want {
				t.Errorf("%s%v: %s, want %s", c.call, c.args, got, c.want)
			}
		})
	}
}

// seccompData lays out struct seccomp_data as a little-endian kernel does
// (amd64 and arm64 both are), with each 32-bit word stored big-endian: the
// interpreter loads words in network order, the kernel in native order.
func seccompData(nr int, abi uint32, args []uint64) []byte {
	b := make([]byte, 64)
	binary.BigEndian.PutUint32(b[0:], uint32(nr))
	binary.BigEndian.PutUint32(b[4:], abi)
	for i, a := range args {
		binary.BigEndian.PutUint32(b[16+8*i:], uint32(a))
		binary.BigEndian.PutUint32(b[20+8*i:], uint32(a>>32))
	}
	return b
}

func decision(ret uint32) string {
	switch {
	case ret == uint32(seccompbpf.ActionAllow):
		return "allow"
	case ret&0xffff0000 == uint32(seccompbpf.ActionErrno):
		switch ret & 0xffff {
		case errnoEPERM:
			return "EPERM"
		case errnoENOSYS:
			return "ENOSYS"
		case errnoEAFNOSUPPORT:
			return "EAFNOSUPPORT"
		}
	}
	return fmt.Sprintf("%#x", ret)
}
