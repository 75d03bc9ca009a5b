package delegate

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/axonhq/axon/hcl/config"
)

func f(v float64) *float64 { return &v }

// menu is declared order: a sub before the locals, so "local before sub"
// is not declared order by accident.
var menu = []Target{
	{ID: "glm", Tier: config.TierSub, GoodAt: []string{"code", "chat"}},
	{ID: "qwen", Tier: config.TierLocal, GoodAt: []string{"Summarize "}},
	{ID: "llama", Tier: config.TierLocal, GoodAt: []string{"code"}},
	{ID: "off", Tier: config.TierLocal, GoodAt: []string{"code"}, Gate: config.GateDisabled},
	{ID: "claude", Tier: config.TierAPI, GoodAt: []string{"code", "review"}, Gate: config.GatePaid},
	{ID: "gpt", Tier: config.TierAPI, GoodAt: []string{"review"}},
}

func TestChoose(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		menu    []Target
		ask     Ask
		want    []string
		instr   string // a substring of the instruction
		wantErr error
		errText string
	}{
		{name: "local by default, declared order", ask: Ask{}, want: []string{"qwen", "llama"}},
		{name: "target wins over task", ask: Ask{Target: "glm", Task: "summarize"}, want: []string{"glm"}},
		{name: "an open api target", ask: Ask{Target: "gpt"}, want: []string{"gpt"}},
		{name: "a gated api target", ask: Ask{Target: "claude"}, wantErr: ErrGated, errText: "billing { enabled = true }"},
		{name: "a disabled target", ask: Ask{Target: "off"}, wantErr: ErrGated, errText: "enabled = false"},
		{name: "an unknown target names the menu", ask: Ask{Target: "nope"}, wantErr: ErrUnknownTarget, errText: "glm, qwen, llama, off, claude, gpt"},
		{name: "task: local before sub, gated left out", ask: Ask{Task: "code"}, want: []string{"llama", "glm"}},
		{name: "task matched case and spaces aside", ask: Ask{Task: " SUMMARIZE"}, want: []string{"qwen"}},
		{name: "task: a sub when no local fits", ask: Ask{Task: "chat"}, want: []string{"glm"}},
		{name: "task: never an api tier", ask: Ask{Task: "review"}, instr: `good at "review"`},
		{name: "task: no fit", ask: Ask{Task: "poetry"}, instr: "Do this sub-task yourself"},
		{name: "no local tier", menu: menu[:1], ask: Ask{}, instr: "No local model"},
		{name: "an empty menu", menu: []Target{}, ask: Ask{Target: "glm"}, wantErr: ErrUnknownTarget, errText: "the menu: none"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := tc.menu
			if m == nil {
				m = menu
			}
			got, err := Choose(m, tc.ask)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) || !strings.Contains(err.Error(), tc.errText) {
					t.Fatalf("err = %v, want %v containing %q", err, tc.wantErr, tc.errText)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got.Providers); diff != "" {
				t.Errorf("providers (-want +got):\n%s", diff)
			}
			if (tc.instr == "") != (got.Instruction == "") || !strings.Contains(got.Instruction, tc.instr) {
				t.Errorf("instruction = %q, want one containing %q", got.Instruction, tc.instr)
			}
		})
	}
}

func TestCost(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		t    Target
		want string
	}{
		{"local unpriced", Target{Tier: config.TierLocal}, "free"},
		{"sub at the tier's zero", Target{Tier: config.TierSub, Input: f(0), Output: f(0)}, "free"},
		{"sub with a pricing block", Target{Tier: config.TierSub, Input: f(0.6), Output: f(2.2)}, "$0.6 in, $2.2 out per MTok"},
		{"api priced", Target{Tier: config.TierAPI, Input: f(3), Output: f(15)}, "$3 in, $15 out per MTok"},
		{"api half priced", Target{Tier: config.TierAPI, Input: f(0.125)}, "$0.125 in, $? out per MTok"},
		{"api unpriced", Target{Tier: config.TierAPI}, "unknown"},
		{"no tier unpriced", Target{}, "unknown"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := tc.t.Cost(); got != tc.want {
				t.Errorf("Cost() = %q, want %q", got, tc.want)
			}
		})
	}
}
