package seccomp

import (
	"fmt"
	"runtime"

	seccompbpf "github.com/elastic/go-seccomp-bpf"
	"github.com/elastic/go-seccomp-bpf/arch"
	"golang.org/x/net/bpf"
)

// An argRule allows call when every check holds.
type argRule struct {
	call   string
	checks []argCheck
}

// An argCheck tests one 32-bit half of one argument.
type argCheck struct {
	arg  uint32 // 0..5
	half half
	op   op
	val  uint32
}

type half uint32

const (
	low  half = 0 // amd64 and arm64 are little-endian: the low half comes first
	high half = 4
)

type op int

const (
	equal     op = iota // the half is val
	notEqual            // the half is not val
	bitsClear           // no bit of val is set in the half
)

// Offsets in struct seccomp_data.
const (
	offNr   = 0
	offArch = 4
	offArgs = 16
)

// assemble turns p into the filter program for the running architecture:
// the argument checks of rules, then the library's program for p with
// ENOSYS as its default action.
func assemble(p seccompbpf.Policy, rules []argRule) ([]bpf.Instruction, error) {
	info, err := arch.GetInfo(runtime.GOARCH)
	if err != nil {
		return nil, fmt.Errorf("seccomp: %w", err)
	}
	numbers, err := p.Assemble()
	if err != nil {
		return nil, fmt.Errorf("seccomp: assemble: %w", err)
	}
	// The library ends the program with the default action's return, which
	// is also where a call of another ABI jumps.
	last := len(numbers) - 1
	if last < 0 || numbers[last] != (bpf.RetConstant{Val: uint32(seccompbpf.ActionErrno) | errnoEPERM}) {
		return nil, fmt.Errorf("seccomp: assemble: the library's program does not end with the default action")
	}
	numbers[last] = bpf.RetConstant{Val: uint32(errno(errnoENOSYS))}

	checks, err := argChecks(info, rules)
	if err != nil {
		return nil, err
	}
	return append(checks, numbers...), nil
}

// argChecks assembles the rules into a program that returns ALLOW for a
// call one of whose rules holds and otherwise jumps to its end, where the
// policy's program starts again from the architecture and the call number.
// Rules are tried in order, so two rules for one call allow either.
func argChecks(info *arch.Info, rules []argRule) ([]bpf.Instruction, error) {
	var prog []bpf.Instruction
	var toEnd []int // indexes of the jumps to the end, fixed at the end
	jumpToEnd := func() {
		toEnd = append(toEnd, len(prog))
		prog = append(prog, bpf.Jump{})
	}

	prog = append(prog,
		bpf.LoadAbsolute{Off: offArch, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: uint32(info.ID), SkipTrue: 1},
	)
	jumpToEnd()
	for _, r := range rules {
		nr, ok := info.SyscallNames[r.call]
		if !ok {
			return nil, fmt.Errorf("seccomp: %s has no system call %q", info.Name, r.call)
		}
		n := len(r.checks)
		// The checks load arguments: every rule loads the call number again.
		prog = append(prog, bpf.LoadAbsolute{Off: offNr, Size: 4})
		// Not this call: skip its checks and its return, to the next rule.
		prog = append(prog, bpf.JumpIf{Cond: bpf.JumpEqual, Val: uint32(nr | info.SeccompMask), SkipFalse: uint8(2*n + 1)})
		for i, c := range r.checks {
			if c.arg > 5 {
				return nil, fmt.Errorf("seccomp: %s: no argument %d", r.call, c.arg)
			}
			fail := uint8(2*(n-1-i) + 1) // past the remaining checks and the return, to the next rule
			prog = append(prog, bpf.LoadAbsolute{Off: offArgs + 8*c.arg + uint32(c.half), Size: 4})
			switch c.op {
			case equal:
				prog = append(prog, bpf.JumpIf{Cond: bpf.JumpEqual, Val: c.val, SkipFalse: fail})
			case notEqual:
				prog = append(prog, bpf.JumpIf{Cond: bpf.JumpEqual, Val: c.val, SkipTrue: fail})
			case bitsClear:
				prog = append(prog, bpf.JumpIf{Cond: bpf.JumpBitsSet, Val: c.val, SkipTrue: fail})
			default:
				return nil, fmt.Errorf("seccomp: %s: unknown check %d", r.call, c.op)
			}
		}
		prog = append(prog, bpf.RetConstant{Val: uint32(seccompbpf.ActionAllow)})
	}
	jumpToEnd()
	for _, i := range toEnd {
		prog[i] = bpf.Jump{Skip: uint32(len(prog) - i - 1)}
	}
	return prog, nil
}
