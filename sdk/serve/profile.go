package serve

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"

	"github.com/hashicorp/go-hclog"

	"github.com/axonhq/axon/internal/pluginrpc"
)

// Profile file names inside the directory the host names in
// pluginrpc.ProfileDirEnv.
const (
	cpuProfile    = "cpu.pprof"
	allocsProfile = "allocs.pprof"
	metricsFile   = "metrics.txt"
)

// startProfiles starts a CPU profile into dir/cpu.pprof and returns the
// function that ends it and writes the allocation profile (every allocation
// since the process started, sampled as the runtime does by default) to
// dir/allocs.pprof, after the runtime's own figures (runtime/metrics: heap,
// stacks, GC goal, goroutines) as the process stood, to dir/metrics.txt.
// The host asks for it only when an operator profiles; the files are
// written once, when the plugin stops, so the CPU profile covers the
// process's whole life (idle time costs no samples).
func startProfiles(dir string) (stop func() error, err error) {
	cpu, err := createProfile(filepath.Join(dir, cpuProfile))
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(cpu); err != nil {
		cpu.Close()
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	return func() error {
		// First, before the profiles' own work and GC move the figures.
		merr := writeMetrics(filepath.Join(dir, metricsFile))
		pprof.StopCPUProfile()
		if err := cpu.Close(); err != nil {
			return fmt.Errorf("cpu profile: %w", err)
		}
		// The allocation figures are those of the last completed GC.
		runtime.GC()
		f, err := createProfile(filepath.Join(dir, allocsProfile))
		if err != nil {
			return err
		}
		if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
			f.Close()
			return fmt.Errorf("allocs profile: %w", err)
		}
		if err := f.Close(); err != nil {
			return err
		}
		return merr
	}, nil
}

// writeMetrics writes every scalar runtime/metrics value, one "name value"
// line each (bytes, counts and seconds as the runtime names them), so the
// process's memory can be told apart from outside: heap objects, free and
// released heap, stacks, runtime metadata. Histograms are left out.
func writeMetrics(path string) error {
	descs := metrics.All()
	samples := make([]metrics.Sample, len(descs))
	for i, d := range descs {
		samples[i].Name = d.Name
	}
	metrics.Read(samples)
	f, err := createProfile(path)
	if err != nil {
		return fmt.Errorf("metrics: %w", err)
	}
	w := bufio.NewWriter(f)
	for _, s := range samples {
		switch s.Value.Kind() {
		case metrics.KindUint64:
			fmt.Fprintf(w, "%s %d\n", s.Name, s.Value.Uint64())
		case metrics.KindFloat64:
			fmt.Fprintf(w, "%s %g\n", s.Name, s.Value.Float64())
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("metrics: %w", err)
	}
	return f.Close()
}

// createProfile creates a profile file readable by the host. In a jail
// with subordinate ids the plugin's uid is not the host user's, so the mode
// is set explicitly rather than left to the umask.
func createProfile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, err
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// profileIfAsked starts the profiles when the host set
// pluginrpc.ProfileDirEnv, and returns what ends them. A profile that
// cannot be written is logged, never fatal: profiling must not stop a
// plugin from serving.
func profileIfAsked(logger hclog.Logger) (stop func()) {
	dir := os.Getenv(pluginrpc.ProfileDirEnv)
	if dir == "" {
		return func() {}
	}
	end, err := startProfiles(dir)
	if err != nil {
		logger.Warn("plugin profiles not written", "dir", dir, "error", err)
		return func() {}
	}
	return func() {
		if err := end(); err != nil {
			logger.Warn("plugin profiles not written", "dir", dir, "error", err)
		}
	}
}
