package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/spf13/cobra"

	"github.com/axonhq/axon/hcl/config"
	"github.com/axonhq/axon/host/daemon"
)

func newReload(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "reload",
		Short: "Make the running axon serve apply its configuration file again",
		Long: "reload asks the axon serve listening on the configuration's listener (or its unix socket) to read " +
			"its configuration again, with the checks axon serve starts with, and apply it without dropping a request: " +
			"requests in flight finish on the old configuration, new ones see the new one, and plugins whose block did " +
			"not change keep running. SIGHUP to axon serve does the same. It prints what started, stopped and was kept, " +
			"and what applies only at the next start; a configuration the checks refuse changes nothing.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return g.reload(cmd.Context()) },
	}
}

func (g *globals) reload(ctx context.Context) error {
	cfg, _, err := g.load()
	if err != nil {
		return err
	}
	d, err := findDaemon(cfg)
	if err != nil {
		return err
	}
	client, base, token := d.client, d.base, d.token
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute) // a hang guard: a reload starts plugins to check them
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/v1/reload", nil)
	if err != nil {
		return err
	}
	req.Header.Set(daemon.ReloadHeader, "1")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("no axon serve answers on %s: %w (start it with axon serve)", base, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Error struct{ Message string } `json:"error"`
		}
		if json.Unmarshal(body, &e) == nil && e.Error.Message != "" {
			return fmt.Errorf("reload refused: %s", e.Error.Message)
		}
		return fmt.Errorf("reload refused: %s: %s", resp.Status, bytes.TrimSpace(body))
	}
	var res daemon.Reloaded
	if err := json.Unmarshal(body, &res); err != nil {
		return fmt.Errorf("reload: unreadable answer: %w", err)
	}
	fmt.Fprintf(g.stdout, "reloaded %s\n", cfg.Source)
	for _, l := range []struct {
		what  string
		names []string
	}{{"started", res.Started}, {"stopped", res.Stopped}, {"kept", res.Kept}} {
		if len(l.names) > 0 {
			fmt.Fprintf(g.stdout, "  %-8s %s\n", l.what+":", strings.Join(l.names, ", "))
		}
	}
	for _, p := range res.Pending {
		fmt.Fprintf(g.stdout, "  pending: %s\n", p)
	}
	return nil
}

// daemonClient reaches the axon serve of cfg: over its unix socket when it
// has one, else its TCP listener.
func daemonClient(cfg *config.Config) (*http.Client, string) {
	if cfg.Axon.UnixSocket != "" {
		sock := cfg.Axon.UnixSocket
		return &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", sock)
		}}}, "http://axon"
	}
	return http.DefaultClient, "http://" + cfg.Axon.Listen
}

// reloadLoader is how axon serve reads its configuration again: the same
// source, with the same checks as at start. What the checks print goes
// into the error, for the caller of the reload, and into the log.
func (g *globals) reloadLoader(logger hclog.Logger) func(context.Context) (*config.Config, *config.Lock, error) {
	return func(ctx context.Context) (*config.Config, *config.Lock, error) {
		var out bytes.Buffer
		gg := *g
		gg.stderr = &out
		cfg, lock, err := gg.load()
		if err == nil {
			err = gg.servePreflight(ctx, cfg, lock, logger)
		}
		if err != nil {
			msg := strings.TrimSpace(out.String())
			if msg == "" || !errors.Is(err, errReported) {
				msg = strings.TrimSpace(msg + "\n" + err.Error())
			}
			logger.Error("reload refused; the running configuration stays", "why", msg)
			return nil, nil, errors.New(msg)
		}
		return cfg, lock, nil
	}
}
