package routing

import (
	"context"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/axonhq/axon/host/usage"
)

// A budget is checked against the spend the usage store has recorded for
// the provider since the start of the calendar month (local time). The
// spend is read at most every spendTTL per provider, within spendTimeout:
// a request never waits on more than one short indexed query, and a burst
// may overshoot a budget by the turns in flight and those not yet written
// (the recorder writes within a second or so).
const (
	spendTTL     = 5 * time.Second
	spendTimeout = 250 * time.Millisecond
)

type budgetState int

const (
	budgetOpen    budgetState = iota
	budgetReached             // the month's spend is at or over the budget
	budgetUnknown             // no spend could be read this month: the budget cannot be kept, so the provider is left out
)

type budgets struct {
	spend  Spend
	logger hclog.Logger

	mu sync.Mutex
	m  map[string]spent
}

type spent struct {
	usd   float64
	month time.Time // the month it was read for
	at    time.Time // when it was read
	over  bool      // at or over the budget when read: logged once per change
}

func newBudgets(s Spend, logger hclog.Logger) *budgets {
	return &budgets{spend: s, logger: logger, m: map[string]spent{}}
}

// check says whether h may spend more this month.
func (b *budgets) check(ctx context.Context, h Hop, now time.Time) budgetState {
	if b.spend == nil {
		return budgetUnknown
	}
	month := usage.MonthStart(now)
	b.mu.Lock()
	s, ok := b.m[h.Name]
	b.mu.Unlock()
	if !ok || !s.month.Equal(month) || now.Sub(s.at) >= spendTTL {
		qctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), spendTimeout)
		usd, err := b.spend.SpendSince(qctx, h.Name, month)
		cancel()
		switch {
		case err != nil && ok && s.month.Equal(month):
			b.logger.Warn("budget: spend unreadable; keeping the last reading", "provider", h.Name, "error", err)
			s.at = now // retried after spendTTL, not on every request
		case err != nil:
			b.logger.Warn("budget: spend unreadable; provider left out until it is", "provider", h.Name, "error", err)
			return budgetUnknown
		default:
			over := usd >= h.Budget
			if over != s.over || !ok {
				if over {
					b.logger.Info("budget reached: provider skipped until the month ends", "provider", h.Name, "spent_usd", usd, "budget_usd", h.Budget)
				} else if ok {
					b.logger.Info("budget open again", "provider", h.Name, "spent_usd", usd, "budget_usd", h.Budget)
				}
			}
			s = spent{usd: usd, month: month, at: now, over: over}
		}
		b.mu.Lock()
		b.m[h.Name] = s
		b.mu.Unlock()
	}
	if s.usd >= h.Budget {
		return budgetReached
	}
	return budgetOpen
}
