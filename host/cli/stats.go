package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/spf13/cobra"

	"github.com/axonhq/axon/hcl/config"
	"github.com/axonhq/axon/host/usage"
)

func newStats(g *globals) *cobra.Command {
	var since, by string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "stats [--since 7d] [--by provider|tier|chain|day] [--json]",
		Short: "Show what the turns used, cost and saved",
		Long: "stats rolls up the usage facts in <state_dir>/usage.db, which axon serve, axon ask and " +
			"axon run write for every turn: requests, tokens, spend, the cost avoided against the reference " +
			"price, the share of errors and the median time to the first token. --json prints what " +
			"GET /v1/stats answers.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return g.stats(cmd.Context(), since, by, asJSON) },
	}
	cmd.Flags().StringVar(&since, "since", "7d", "how far back: 7d, 36h, a date (2026-11-01) or an RFC 3339 time")
	cmd.Flags().StringVar(&by, "by", "provider", "group by provider, tier, chain or day")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	return cmd
}

func (g *globals) stats(ctx context.Context, sinceFlag, byFlag string, asJSON bool) error {
	cfg, _, err := g.load()
	if err != nil {
		return err
	}
	now := time.Now()
	since, err := usage.ParseSince(sinceFlag, now)
	if err != nil {
		return err
	}
	by, err := usage.ParseBy(byFlag)
	if err != nil {
		return err
	}
	q := usage.Query{Since: since, Until: now.Add(time.Millisecond), By: by}
	rep := &usage.Report{Since: q.Since, Until: q.Until, By: by, Rows: []usage.Row{}, Total: usage.Row{Key: "total"}}
	store, err := usage.OpenExisting(ctx, usage.Path(cfg.Axon.StateDir))
	switch {
	case errors.Is(err, usage.ErrNoStore):
	case err != nil:
		return err
	default:
		defer store.Close()
		if rep, err = store.Report(ctx, q); err != nil {
			return err
		}
	}
	if asJSON {
		enc := json.NewEncoder(g.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	g.printStats(rep, sinceFlag)
	return nil
}

func (g *globals) printStats(rep *usage.Report, sinceFlag string) {
	fmt.Fprintf(g.stdout, "usage since %s (%s), by %s: %d requests\n", rep.Since.Local().Format("2006-01-02 15:04"), sinceFlag, rep.By, rep.Total.Requests)
	if rep.Total.Requests == 0 {
		return
	}
	fmt.Fprintln(g.stdout)
	// Numbers align right; the key column is padded to its width first,
	// so it reads left-aligned.
	head := strings.ToUpper(string(rep.By))
	w := len(head)
	for _, r := range rep.Rows {
		w = max(w, len(r.Key))
	}
	tw := tabwriter.NewWriter(g.stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%-*s\tREQUESTS\tERRORS\tINPUT\tOUTPUT\tCACHE READ\tCACHE WRITE\tSPEND\tAVOIDED\tP50 FIRST TOKEN\t\n", w, head)
	for _, r := range rep.Rows {
		statsLine(tw, fmt.Sprintf("%-*s", w, r.Key), r)
	}
	statsLine(tw, fmt.Sprintf("%-*s", w, "total"), rep.Total)
	tw.Flush()
	t := rep.Total
	if t.Unreported > 0 {
		fmt.Fprintf(g.stdout, "\n%d of the answered requests reported no token counts: their tokens and spend are not in the sums.\n", t.Unreported)
	}
	if t.Unpriced > 0 {
		fmt.Fprintf(g.stdout, "%d requests could not be priced (no price for their model): add pricing {} to the provider block.\n", t.Unpriced)
	}
}

func statsLine(tw *tabwriter.Writer, key string, r usage.Row) {
	fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", key, r.Requests, percent(r.ErrorShare),
		count(r.InputTokens), count(r.OutputTokens), count(r.CacheReadTokens), count(r.CacheWriteTokens),
		dollars(r.SpendUSD), dollars(r.AvoidedUSD), millis(r.P50FirstTokenMS))
}

func percent(x float64) string { return strconv.FormatFloat(100*x, 'f', 1, 64) + "%" }

// count prints a token sum; "-" when no request reported it.
func count(n *int64) string {
	if n == nil {
		return "-"
	}
	return strconv.FormatInt(*n, 10)
}

// dollars prints USD to the cent's hundredth, or to six places when that
// would show a spend as nothing.
func dollars(x *float64) string {
	switch {
	case x == nil:
		return "-"
	case *x != 0 && *x < 0.0001 && *x > -0.0001:
		return fmt.Sprintf("$%.6f", *x)
	}
	return fmt.Sprintf("$%.4f", *x)
}

func millis(ms *float64) string {
	if ms == nil {
		return "-"
	}
	return (time.Duration(*ms * float64(time.Millisecond))).Round(time.Millisecond).String()
}

// usageStore opens the usage store of cfg for a command that records facts
// (ask, run). It is nil, and the command records nothing, when the store
// cannot be opened: measuring never stops a command. close closes it.
func usageStore(ctx context.Context, cfg *config.Config, logger hclog.Logger) (w usage.Writer, closeStore func()) {
	store, err := usage.Open(ctx, usage.Path(cfg.Axon.StateDir))
	if err != nil {
		logger.Warn("usage facts will not be recorded", "error", err)
		return nil, func() {}
	}
	return store, func() { store.Close() }
}
