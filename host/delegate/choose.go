package delegate

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/axonhq/axon/hcl/config"
)

// Target is one provider on the menu: a provider block that sets
// can_delegate = true, as the configuration says.
type Target struct {
	ID     string // the provider block's name
	Tier   config.Tier
	GoodAt []string
	Plugin string
	Model  string
	// Gate is why routing never sends a request to the provider
	// (config.GatePaid, config.GateDisabled); "" when it may.
	Gate string
	// Input and Output are its price in USD per million tokens; nil when
	// unknown.
	Input, Output *float64
}

// Cost is what the menu says a target costs: its price per MTok when
// known, else "free" for a local or sub tier (the hardware or the
// subscription is paid either way), else "unknown".
func (t Target) Cost() string {
	free := t.Tier == config.TierLocal || t.Tier == config.TierSub
	if t.Input == nil && t.Output == nil {
		if free {
			return "free"
		}
		return "unknown"
	}
	if free && zero(t.Input) && zero(t.Output) {
		return "free"
	}
	return fmt.Sprintf("$%s in, $%s out per MTok", usd(t.Input), usd(t.Output))
}

func zero(p *float64) bool { return p == nil || *p == 0 }

func usd(p *float64) string {
	if p == nil {
		return "?"
	}
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.4f", *p), "0"), ".")
}

// Ask is what a delegate tool was called with.
type Ask struct {
	Target string // a provider on the menu; wins over Task
	Task   string // matched against good_at, case and spaces aside
}

// Plan is who takes a sub-task: Providers in the order the chain tries
// them, or, when nothing fits, an Instruction for the caller to do the
// sub-task itself (a normal answer, not a failure).
type Plan struct {
	Providers   []string
	Instruction string
}

// Conditions a caller can correct: the tool error names them.
var (
	ErrUnknownTarget = errors.New("no such delegate target")
	ErrGated         = errors.New("delegate target is gated")
)

// Choose applies the precedence target > task > local to the menu (the
// can_delegate providers in declared order):
//   - a Target must be on the menu and pass its gate: an api tier needs the
//     paid gate open, however it was named;
//   - a Task picks, among the local and sub providers whose good_at holds
//     it, the cheapest first: local before sub, then declared order, the
//     others after it as fallbacks. An api tier is never chosen by task;
//   - otherwise the local tier, in declared order.
//
// No fit is a Plan with an Instruction, never an error.
func Choose(menu []Target, a Ask) (Plan, error) {
	if a.Target != "" {
		i := slices.IndexFunc(menu, func(t Target) bool { return t.ID == a.Target })
		if i < 0 {
			return Plan{}, fmt.Errorf("%w %q; the menu: %s", ErrUnknownTarget, a.Target, names(menu))
		}
		if g := menu[i].Gate; g != "" {
			return Plan{}, fmt.Errorf("%w: %s", ErrGated, gateReason(menu[i]))
		}
		return Plan{Providers: []string{a.Target}}, nil
	}
	if task := norm(a.Task); task != "" {
		var local, sub []string
		for _, t := range menu {
			if t.Gate != "" || !slices.ContainsFunc(t.GoodAt, func(g string) bool { return norm(g) == task }) {
				continue
			}
			switch t.Tier {
			case config.TierLocal:
				local = append(local, t.ID)
			case config.TierSub:
				sub = append(sub, t.ID)
			}
		}
		if fit := append(local, sub...); len(fit) > 0 {
			return Plan{Providers: fit}, nil
		}
		return Plan{Instruction: fmt.Sprintf(
			"No delegate target is good at %q at no per-token cost (the local and sub providers that can delegate: %s). Do this sub-task yourself.",
			a.Task, names(free(menu)))}, nil
	}
	return localPlan(menu), nil
}

// localPlan is the free local tier: the local providers that can delegate
// and pass their gate, in declared order.
func localPlan(menu []Target) Plan {
	var p Plan
	for _, t := range menu {
		if t.Tier == config.TierLocal && t.Gate == "" {
			p.Providers = append(p.Providers, t.ID)
		}
	}
	if len(p.Providers) == 0 {
		p.Instruction = "No local model can take this sub-task (no provider of tier \"local\" sets can_delegate = true). Do this sub-task yourself."
	}
	return p
}

func free(menu []Target) []Target {
	return slices.DeleteFunc(slices.Clone(menu), func(t Target) bool {
		return t.Gate != "" || (t.Tier != config.TierLocal && t.Tier != config.TierSub)
	})
}

func norm(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

func names(menu []Target) string {
	if len(menu) == 0 {
		return "none"
	}
	ids := make([]string, len(menu))
	for i, t := range menu {
		ids[i] = t.ID
	}
	return strings.Join(ids, ", ")
}

// gateReason says why t is gated and how to open the gate.
func gateReason(t Target) string {
	switch t.Gate {
	case config.GatePaid:
		return fmt.Sprintf("provider %q is tier api, behind the paid gate (%s): it is called only with axon { billing { enabled = true } } and enabled = true in its block", t.ID, t.Gate)
	case config.GateDisabled:
		return fmt.Sprintf("provider %q is disabled (%s): its block says enabled = false", t.ID, t.Gate)
	}
	return fmt.Sprintf("provider %q is gated (%s)", t.ID, t.Gate)
}
