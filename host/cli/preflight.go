package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/hcl/v2"

	"github.com/axonhq/axon/hcl/config"
	"github.com/axonhq/axon/host/daemon"
	"github.com/axonhq/axon/host/supervisor"
	"github.com/axonhq/axon/sdk"
)

// preflightResult is what `axon check` and `axon serve` both refuse before
// anything runs: per plugin block, a binary that is not installed, one
// that does not match its sha256 pin, one that does not start, one that
// serves another kind or another SDK API, and a block that does not fit
// the schema its plugin declares. Each is printed as check prints it, with
// file and line.
type preflightResult struct {
	infos   map[*config.PluginBlock]sdk.Info // the blocks that passed, with their binary's Info
	missing int                              // blocks whose binary is not installed
	failed  int                              // the other blocks that failed
}

// binaryFacts is what the preflight learnt of one binary.
type binaryFacts struct {
	sha256 string   // "" when it could not be read
	info   sdk.Info // what it declares: zero when it was not asked (see err, and the pins)
	err    error    // it could not be read, or did not answer its Info
}

// preflight checks every plugin block of cfg against its binary. The
// binary's Info comes from the state directory's cache when its entry
// still holds (nothing starts); otherwise one process per binary is
// inspected (started, asked for its Info, stopped: never configured), all
// binaries in parallel, and the entry written. fresh ignores the cache
// and inspects every binary (`axon check`). sup holds the blocks'
// instances (daemon.New).
func (g *globals) preflight(ctx context.Context, cfg *config.Config, lock *config.Lock, sup *supervisor.Supervisor, logger hclog.Logger, fresh bool) (preflightResult, error) {
	pf := preflightResult{infos: map[*config.PluginBlock]sdk.Info{}}
	missing, err := g.checkBinaries(cfg)
	if err != nil {
		return pf, err
	}
	pf.missing = len(missing)
	byPath := map[string][]*config.PluginBlock{} // the blocks of each binary, in block order
	for _, pb := range cfg.PluginBlocks() {
		if !missing[pb] {
			byPath[cfg.PluginPath(pb)] = append(byPath[cfg.PluginPath(pb)], pb)
		}
	}
	cache := newInfoCache(cfg.Axon.StateDir)
	facts := make(map[string]binaryFacts, len(byPath))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for path, blocks := range byPath {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f := learn(ctx, cache, path, blocks, lock, sup, logger, fresh)
			mu.Lock()
			facts[path] = f
			mu.Unlock()
		}()
	}
	wg.Wait()
	var diags hcl.Diagnostics
	for _, pb := range cfg.PluginBlocks() {
		if missing[pb] {
			continue
		}
		f := facts[cfg.PluginPath(pb)]
		if d := judge(cfg, lock, sup, pb, f); len(d) > 0 {
			diags = append(diags, d...)
			pf.failed++
		} else {
			pf.infos[pb] = f.info
		}
	}
	if len(diags) > 0 {
		config.WriteDiagnostics(g.stderr, g.files, diags)
	}
	return pf, nil
}

// learn finds the Info of the binary at path, which blocks use, and its
// sha256 when a block pins it: from the cache when its entry holds, else
// by inspecting the binary through the first block whose pin it matches.
// An unpinned binary is not hashed (17 ms for each 20 MB here, the largest
// part of a cold start after the inspections): nothing here would read the
// sum, and the supervisor checks a pin on the very file it executes anyway.
func learn(ctx context.Context, cache infoCache, path string, blocks []*config.PluginBlock, lock *config.Lock, sup *supervisor.Supervisor, logger hclog.Logger, fresh bool) binaryFacts {
	pinned := false
	for _, pb := range blocks {
		pinned = pinned || pb.Pin(lock) != ""
	}
	fi, err := os.Stat(path)
	if err != nil {
		return binaryFacts{err: err}
	}
	st := statOf(fi)
	if !fresh {
		if sha, info, ok := cache.lookup(path, st); ok && (sha != "" || !pinned) {
			// For these early diagnostics only: every launch checks the
			// pin on the file it executes, and the live Info again.
			return binaryFacts{sha256: sha, info: info}
		}
	}
	var sha string
	if pinned {
		if sha, st, err = hashBinary(path); err != nil {
			return binaryFacts{err: err}
		}
	}
	var via *config.PluginBlock
	for _, pb := range blocks {
		if pin := pb.Pin(lock); pin == "" || pin == sha {
			via = pb
			break
		}
	}
	if via == nil {
		return binaryFacts{sha256: sha} // every block fails on its pin
	}
	in, err := sup.Instance(via.Name)
	if err != nil {
		return binaryFacts{sha256: sha, err: err}
	}
	start := time.Now()
	info, err := in.Inspect(ctx)
	if err != nil {
		return binaryFacts{sha256: sha, err: err}
	}
	logger.Info("plugin binary inspected", "binary", path, "took", time.Since(start).Round(time.Millisecond))
	if err := cache.store(path, st, sha, info); err != nil {
		logger.Info("plugin info not cached; the next start inspects the binary again", "binary", path, "error", err)
	}
	return binaryFacts{sha256: sha, info: info}
}

// judge returns the errors of one block, with file and line.
func judge(cfg *config.Config, lock *config.Lock, sup *supervisor.Supervisor, pb *config.PluginBlock, f binaryFacts) hcl.Diagnostics {
	rng := pb.PluginRange
	if rng == (hcl.Range{}) {
		rng = pb.DefRange
	}
	diag := func(summary, detail string, args ...any) hcl.Diagnostics {
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: summary, Detail: fmt.Sprintf(detail, args...), Subject: rng.Ptr()}}
	}
	if pin := pb.Pin(lock); pin != "" && f.sha256 != "" && pin != f.sha256 {
		if pb.SHA256 != "" {
			return diag("Plugin binary does not match its pin",
				"The block pins %s to sha256 %s, but the binary in plugin_dir has sha256 %s. If you replaced it on purpose, set the block's sha256 to the new one (`axon plugins` shows it).",
				pb.Binary(), pin, f.sha256)
		}
		return diag("Plugin binary does not match its pin",
			"%s pins %s to sha256 %s, but the binary in plugin_dir has sha256 %s. If you rebuilt or updated it on purpose, run `axon plugins lock` to pin the new one.",
			cfg.LockPath(), pb.Binary(), pin, f.sha256)
	}
	if f.err != nil {
		return diag("Plugin did not start", "%s %q: %v.", pb.Kind, pb.Name, f.err)
	}
	in, err := sup.Instance(pb.Name)
	if err != nil {
		return diag("Plugin not registered", "%v.", err)
	}
	err = in.Check(f.info)
	var ce *daemon.ConfigError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ce):
		return ce.Diags
	case errors.Is(err, supervisor.ErrKind):
		return diag("Wrong plugin kind",
			"%s serves a %s plugin, not a %s: it is misnamed, or not the plugin you meant.", pb.Binary(), f.info.Kind, pb.Kind)
	case errors.Is(err, supervisor.ErrAPIVersion):
		return diag("Incompatible plugin API", "%s: %v.", pb.Binary(), err)
	}
	return diag("Plugin refused", "%s %q: %v.", pb.Kind, pb.Name, err)
}

// servePreflight runs the preflight for `axon serve`, before anything that
// starts a plugin or draws is built: cached Info where it holds, and
// nothing drawn. It prints the refusal and returns errReported on failure.
func (g *globals) servePreflight(ctx context.Context, cfg *config.Config, lock *config.Lock, logger hclog.Logger) error {
	d, err := daemon.New(cfg, lock, logger, daemon.Options{NoFaces: true})
	if err != nil {
		return err
	}
	defer d.Close()
	pf, err := g.preflight(ctx, cfg, lock, d.Supervisor(), logger, false)
	if err != nil {
		return err
	}
	if pf.missing+pf.failed > 0 {
		fmt.Fprintln(g.stderr, pf.refusal())
		return errReported
	}
	return nil
}

// refusal is the line serve prints when the preflight failed.
func (pf preflightResult) refusal() string {
	var why string
	if pf.missing > 0 {
		why = fmt.Sprintf("the binary of %s is not installed", plural(pf.missing, "plugin block"))
	}
	if pf.failed > 0 {
		if why != "" {
			why += ", and "
		}
		why += fmt.Sprintf("%s failed the plugin checks", plural(pf.failed, "plugin block"))
	}
	return "axon: not serving: " + why + " (see above)"
}
