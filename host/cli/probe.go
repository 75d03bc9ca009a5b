package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/axonhq/axon/hcl/config"
	"github.com/axonhq/axon/host/chain"
	"github.com/axonhq/axon/host/daemon"
	"github.com/axonhq/axon/sdk"
)

// probeFlags are `axon check`'s --probe and --probe-timeout.
type probeFlags struct {
	on      bool
	timeout time.Duration
}

// defaultProbeTimeout bounds one probe: long enough for a hosted model's
// first token, short enough that a silent upstream does not hold check.
const defaultProbeTimeout = 15 * time.Second

func (f *probeFlags) register(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&f.on, "probe", false,
		"also send every provider a one-word prompt (a few tokens of output, billed as such) and print what answered")
	cmd.Flags().DurationVar(&f.timeout, "probe-timeout", defaultProbeTimeout, "how long each provider's probe may take")
}

// The probe's request: one word in, a few tokens out.
const (
	probePrompt    = "ping"
	probeMaxTokens = 8
)

// errProbeTimeout ends a probe that ran out of --probe-timeout.
var errProbeTimeout = errors.New("probe timeout")

// probeResult is one row of the probe table.
type probeResult struct {
	provider  *config.Provider
	reachable string // yes, no, or - (not known)
	auth      string // yes, no, - (not known), or "no key" (none configured)
	latency   time.Duration
	result    string // "ok", or the class, code and status with a short reason
	failed    bool
}

// probe sends one tiny request to every provider block at once, each
// through its own plugin process and egress as a real request goes, and
// prints one row per block in configuration order. It returns errReported
// when a probe failed. With --probe unset it does nothing.
func (g *globals) probe(ctx context.Context, cfg *config.Config, b *daemon.Daemon, f probeFlags) error {
	if !f.on {
		return nil
	}
	if f.timeout <= 0 {
		return fmt.Errorf("--probe-timeout must be positive, not %s", f.timeout)
	}
	results := make([]probeResult, len(cfg.Providers))
	var wg sync.WaitGroup
	for i, p := range cfg.Providers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = probeProvider(ctx, b, p, f.timeout)
		}()
	}
	wg.Wait()
	w := tabwriter.NewWriter(g.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "PROVIDER\tPLUGIN\tMODEL\tREACHABLE\tAUTH\tLATENCY\tRESULT")
	failed := 0
	for _, r := range results {
		if r.failed {
			failed++
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.provider.Name, cmp.Or(r.provider.Plugin, "-"),
			cmp.Or(r.provider.Model(), "(plugin default)"), r.reachable, r.auth, roundLatency(r.latency), r.result)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if failed > 0 {
		fmt.Fprintf(g.stderr, "%d of %d provider probes failed\n", failed, len(results))
		return errReported
	}
	return nil
}

// probeProvider runs the probe request on a chain of this one provider
// with a single attempt: the engine's timeouts and stream checks apply as
// to a real request, and a failure is not retried.
func probeProvider(ctx context.Context, b *daemon.Daemon, p *config.Provider, timeout time.Duration) probeResult {
	r := probeResult{provider: p, reachable: "-", auth: "-"}
	in, err := b.Supervisor().Instance(p.Name)
	if err != nil {
		r.failed, r.result = true, err.Error()
		return r
	}
	ch := &chain.Chain{
		Name: "probe",
		Hops: []chain.Hop{{
			Name: p.Name, Provider: in, Model: p.Model(),
			FirstToken: p.Timeouts.FirstToken, Idle: p.Timeouts.Idle,
		}},
		Policy: chain.Policy{Attempts: 1, MaxRetryAfter: -1},
	}
	req := &sdk.Request{
		MaxTokens: probeMaxTokens,
		Messages:  []sdk.Message{{Role: sdk.RoleUser, Parts: []sdk.Part{sdk.Text{Text: probePrompt}}}},
	}
	// A timer, not a deadline: a deadline travels with the plugin call and
	// may fire there first, as the plugin's own timeout error. Cancelled
	// here, the cause is set before the call hears of it.
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	timer := time.AfterFunc(timeout, func() { cancel(errProbeTimeout) })
	defer timer.Stop()
	start := time.Now()
	_, err = ch.Run(ctx, req, sdk.SinkFunc(func(context.Context, sdk.Event) error { return nil }), nil)
	r.latency = time.Since(start)
	if err != nil && errors.Is(context.Cause(ctx), errProbeTimeout) {
		r.failed, r.result = true, fmt.Sprintf("timeout: no answer within %s (--probe-timeout)", timeout)
		return r
	}
	r.reachable, r.auth, r.result, r.failed = classifyProbe(p, err)
	return r
}

// classifyProbe reads a probe's outcome into the table's columns. The
// class, code and status come from the plugin (docs/errors.md); only a
// failure with no HTTP response is told apart by its message, since a
// refused connection, a failed name lookup and a TLS failure share the
// transient class and have no code of their own.
func classifyProbe(p *config.Provider, err error) (reachable, auth, result string, failed bool) {
	authOK := "yes"
	if p.Credential.IsZero() {
		authOK = "no key"
	}
	var e *sdk.Error
	switch {
	case err == nil:
		return "yes", authOK, "ok", false
	case errors.Is(err, sdk.ErrNoText):
		// A 200 whose few tokens all went to reasoning: the provider answered.
		return "yes", authOK, fmt.Sprintf("ok (no text within %d tokens)", probeMaxTokens), false
	case !errors.As(err, &e):
		return "-", "-", oneLine(err.Error()), true
	}
	label := string(e.Class)
	if e.Code != "" && e.Code != string(e.Class) {
		label += "/" + e.Code
	}
	if e.Status != 0 {
		label += fmt.Sprintf(" (HTTP %d)", e.Status)
	}
	msg := strings.ToLower(e.Message)
	reachable, auth = "yes", authOK
	var reason string
	switch {
	case e.Code == "credential_missing":
		reachable, auth, reason = "-", "no", fmt.Sprintf("no key: %s is unset, empty or unreadable", credentialName(p.Credential))
	case e.Class == sdk.ClassAuthRequired && e.Status == http.StatusForbidden:
		auth, reason = "no", fmt.Sprintf("the key in %s may not use this model or endpoint", credentialName(p.Credential))
	case e.Class == sdk.ClassAuthRequired && p.Credential.IsZero():
		auth, reason = "no", "the provider asks for a key and none is configured"
	case e.Class == sdk.ClassAuthRequired:
		auth, reason = "no", fmt.Sprintf("the key in %s was refused", credentialName(p.Credential))
	case e.Class == sdk.ClassQuotaExhausted:
		reason = "quota or credit used up"
	case e.Status == http.StatusNotFound:
		reason = fmt.Sprintf("model %q or the endpoint not found", p.Model())
	case e.Status == http.StatusTooManyRequests:
		reason = "rate limited"
	case e.Status >= http.StatusInternalServerError:
		reason = "server error"
	case e.Status != 0:
		reason = oneLine(e.Message)
	case errors.Is(err, sdk.ErrTimeout) || strings.Contains(msg, "i/o timeout"):
		reachable, auth, reason = "-", "-", oneLine(strings.TrimPrefix(e.Message, "egress: "))
	case errors.Is(err, sdk.ErrEgressDenied):
		reachable, auth, reason = "-", "-", oneLine(strings.TrimPrefix(e.Message, "egress: "))
	case strings.Contains(msg, "connection refused"):
		reachable, auth, reason = "no", "-", "connection refused at "+p.BaseURL()
	case strings.Contains(msg, "no such host") || strings.Contains(msg, "server misbehaving"):
		reachable, auth, reason = "no", "-", "DNS: cannot resolve the host of "+p.BaseURL()
	case strings.Contains(msg, "tls:") || strings.Contains(msg, "x509:") || strings.Contains(msg, "https client"):
		reachable, auth, reason = "no", "-", "TLS: "+oneLine(tlsReason(e.Message))
	default:
		reachable, auth, reason = "-", "-", oneLine(e.Message)
	}
	return reachable, auth, label + ": " + reason, true
}

// tlsReason is a TLS failure's message from the TLS library's own words:
// "egress: tls: failed to verify certificate: x509: …" is "failed to
// verify certificate: x509: …".
func tlsReason(msg string) string {
	if i := strings.Index(msg, "tls: "); i >= 0 {
		return msg[i+len("tls: "):]
	}
	return strings.TrimPrefix(msg, "egress: ")
}

// oneLine keeps a message to one short table cell.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 120 {
		s = string(r[:117]) + "..."
	}
	return s
}

func roundLatency(d time.Duration) string {
	if d < time.Millisecond {
		return "<1ms"
	}
	return d.Round(time.Millisecond).String()
}
