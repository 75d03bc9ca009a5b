package cli

import (
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// BenchmarkArm64Binaries cross-compiles the Pi set for linux/arm64 as make
// pi does (-trimpath, -ldflags=-s -w) and reports each binary's size and
// how much of it is loaded (its PT_LOAD segments: text, rodata and
// pclntab, data), which is what RssFile approaches on amd64 here. With
// qemu-aarch64-static on PATH, it also starts each plugin under qemu-user,
// asks its Info and reports the plugin's own Go runtime figures (heap
// objects, free heap, stacks), which are the arm64 process's. qemu's RSS is
// not reported: it is qemu's, with its code, its translation cache and its
// heap, not the plugin's. AXON_BENCH_ARM64_BIN=DIR measures the binaries
// make pi put in DIR instead of building them.
//
//	go test -run '^$' -bench Arm64 -benchtime 1x ./host/cli/
func BenchmarkArm64Binaries(b *testing.B) {
	for range b.N {
	}
	dir := os.Getenv("AXON_BENCH_ARM64_BIN")
	if dir == "" {
		dir = b.TempDir()
		for _, p := range piSet {
			pkg := "../cmd/axon"
			if p.name != "host" {
				pkg = "../../plugins/" + strings.TrimPrefix(p.binary, "axon-")
			}
			cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", filepath.Join(dir, p.binary), pkg)
			cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH=arm64", "CGO_ENABLED=0")
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("build %s: %v\n%s", pkg, err, out)
			}
		}
	}
	qemu, _ := exec.LookPath("qemu-aarch64-static")
	var sb strings.Builder
	sb.WriteString("\nlinux/arm64 binaries, stripped (MiB)\n| binary | size | loaded segments | Go heap objects (qemu) | Go heap free (qemu) | Go stacks (qemu) |\n|---|---|---|---|---|---|")
	var total, loadedTotal int64
	for _, p := range piSet {
		path := filepath.Join(dir, p.binary)
		st, err := os.Stat(path)
		if err != nil {
			b.Fatal(err)
		}
		loaded, err := loadedBytes(path)
		if err != nil {
			b.Fatal(err)
		}
		m := procMem{goHeap: -1, goFree: -1, goStacks: -1}
		if qemu != "" && p.name != "host" {
			prof := filepath.Join(b.TempDir(), p.name)
			_, stop := startBare(b, exec.Command(qemu, path), prof)
			time.Sleep(time.Second)
			stop()
			pluginGo(prof, &m)
		}
		mb := func(kb int) string {
			if kb < 0 {
				return "–"
			}
			return fmt.Sprintf("%.1f", float64(kb)/1024)
		}
		fmt.Fprintf(&sb, "\n| %s | %.1f | %.1f | %s | %s | %s |", p.binary, float64(st.Size())/(1<<20), float64(loaded)/(1<<20), mb(m.goHeap), mb(m.goFree), mb(m.goStacks))
		b.ReportMetric(float64(st.Size()/1024), p.name+"-arm64-kB")
		total += st.Size()
		loadedTotal += loaded
	}
	fmt.Fprintf(&sb, "\n| **all seven** | %.1f | %.1f | | | |", float64(total)/(1<<20), float64(loadedTotal)/(1<<20))
	if qemu == "" {
		sb.WriteString("\n(no qemu-aarch64-static on PATH: no Go figures)")
	}
	fmt.Println(sb.String())
}

// loadedBytes is the file-backed size of path's loadable segments.
func loadedBytes(path string) (int64, error) {
	f, err := elf.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var n int64
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD {
			n += int64(p.Filesz)
		}
	}
	return n, nil
}
