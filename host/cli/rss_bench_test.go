package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"

	"github.com/axonhq/axon/host/internal/testbin"
	"github.com/axonhq/axon/internal/idletrim"
	"github.com/axonhq/axon/internal/pluginrpc"
)

// The memory benchmarks run the Pi set — the host, two providers (openai,
// anthropic), the epd display and three tools (clock, fetch, notes) — as
// real processes and report each one's memory as the kernel counts it
// (/proc/PID/status, smaps_rollup) and as its Go runtime does.
//
//	go test -run '^$' -bench IdleRSS -benchtime 1x ./host/cli/
//	go test -run '^$' -bench LoadedRSS -benchtime 1x ./host/cli/
//
// AXON_BENCH_BIN=DIR measures the binaries in DIR (make bench: the ones
// make build made, with its flags); without it they are built here with a
// plain go build. Each prints a per-process table.

// piSet names the Pi set's processes, host first, as the tables list them;
// the values are the binaries.
var piSet = []struct{ name, binary string }{
	{"host", "axon"},
	{"openai", "axon-provider-openai"},
	{"anthropic", "axon-provider-anthropic"},
	{"epd", "axon-display-epd"},
	{"clock", "axon-tool-clock"},
	{"fetch", "axon-tool-fetch"},
	{"notes", "axon-tool-notes"},
}

// goalSet is what issue 14's goal counts: host, two providers, epd.
var goalSet = []string{"host", "openai", "anthropic", "epd"}

// instanceOf is the configuration block each plugin process serves (its
// profile directory is named after it).
var instanceOf = map[string]string{"openai": "a", "anthropic": "b", "clock": "clock", "fetch": "fetch", "notes": "notes", "epd": "epd"}

var (
	benchBinOnce sync.Once
	benchBin     string
	benchBinErr  error
)

// piSetBinaries returns the directory holding the Pi set's binaries.
func piSetBinaries(b *testing.B) string {
	benchBinOnce.Do(func() {
		if dir := os.Getenv("AXON_BENCH_BIN"); dir != "" {
			benchBin = dir
			return
		}
		benchBin = binDir
		targets := make([]testbin.Target, 0, len(piSet))
		for _, p := range piSet {
			pkg := "../cmd/axon"
			if p.name != "host" {
				pkg = "../../plugins/" + strings.TrimPrefix(p.binary, "axon-")
			}
			targets = append(targets, testbin.Target{Name: p.binary, Pkg: pkg})
		}
		benchBinErr = testbin.BuildInto(binDir, targets...)
	})
	if benchBinErr != nil {
		b.Fatal(benchBinErr)
	}
	return benchBin
}

// procMem is one process's memory, in kB. The Go figures are -1 when the
// run did not collect them.
type procMem struct {
	rss, anon, file, hwm     int // /proc/PID/status: VmRSS, RssAnon, RssFile (+RssShmem), VmHWM
	pss, pssAnon, pssFile    int // /proc/PID/smaps_rollup
	goHeap, goFree, goStacks int // Go runtime: heap objects; heap free, unused and not returned to the OS; goroutine stacks
}

// readProcMem reads pid's memory from /proc; zero when it is gone.
func readProcMem(pid int) procMem {
	m := procMem{goHeap: -1, goFree: -1, goStacks: -1}
	fields := func(path string, keys map[string]*int) {
		f, err := os.ReadFile(path)
		if err != nil {
			return
		}
		for _, line := range strings.Split(string(f), "\n") {
			k, v, ok := strings.Cut(line, ":")
			if p := keys[k]; ok && p != nil {
				if fs := strings.Fields(v); len(fs) > 0 {
					n, _ := strconv.Atoi(fs[0])
					*p += n
				}
			}
		}
	}
	fields(fmt.Sprintf("/proc/%d/status", pid), map[string]*int{
		"VmRSS": &m.rss, "RssAnon": &m.anon, "RssFile": &m.file, "RssShmem": &m.file, "VmHWM": &m.hwm,
	})
	fields(fmt.Sprintf("/proc/%d/smaps_rollup", pid), map[string]*int{
		"Pss": &m.pss, "Pss_Anon": &m.pssAnon, "Pss_File": &m.pssFile, "Pss_Shmem": &m.pssFile,
	})
	return m
}

// children maps the binary name (argv[0]'s base) of every child of pid to
// its pid.
func children(pid int) map[string]int {
	entries, _ := os.ReadDir("/proc")
	out := map[string]int{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...
		rest := string(stat[strings.LastIndexByte(string(stat), ')')+2:])
		if f := strings.Fields(rest); len(f) < 2 || f[1] != strconv.Itoa(pid) {
			continue
		}
		argv, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p))
		arg0, _, _ := strings.Cut(string(argv), "\x00")
		out[filepath.Base(arg0)] = p
	}
	return out
}

// piServe is one `axon serve` of the Pi set (the epd display apart: it has
// no panel here).
type piServe struct {
	cmd      *exec.Cmd
	addr     string // front door, http://host:port
	pprof    string // host's pprof listener, host:port
	profiles string // --plugin-profiles directory; "" when off
	up       string // mock upstream URL
}

func freeLoopbackPort(b *testing.B) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// startPiServe starts axon serve with the Pi set's providers and tools and
// starts every plugin: one request to each provider, and a session run
// that admits the three tools. With profiles, every plugin writes its
// runtime figures (sdk/serve metrics.txt) when it stops; idleStop, when
// set, is the axon block's idle_stop.
func startPiServe(b *testing.B, bin string, profiles bool, idleStop string) *piServe {
	axonExtra := ""
	if idleStop != "" {
		axonExtra = fmt.Sprintf("  idle_stop = %q\n", idleStop)
	}
	s := &piServe{up: openaiUpstream(b, 200, "hi").URL, pprof: freeLoopbackPort(b)}
	notes := b.TempDir()
	text := fmt.Sprintf(`axon {
  listen = "127.0.0.1:0"
  state_dir = %q
  plugin_dir = %q
%s}
provider "a" {
  plugin   = "openai"
  base_url = "%s/v1"
  model    = "m"
  egress { max_concurrent = 256 }
}
provider "b" {
  plugin   = "anthropic"
  base_url = "%s"
  model    = "m"
}
chain "default" { providers = [provider.a, provider.b] }
tool "clock" {}
tool "notes" {
  dir = %q
  grant { read_write = [%q] }
}
tool "fetch" {
  allow = ["example.com"]
  egress { allow = ["example.com"] }
}
`, b.TempDir(), bin, axonExtra, s.up, s.up, notes, notes)
	cfg := filepath.Join(b.TempDir(), "axon.hcl")
	if err := os.WriteFile(cfg, []byte(text), 0o600); err != nil {
		b.Fatal(err)
	}
	args := []string{"serve", "--config", cfg, "--pprof", s.pprof}
	if profiles {
		s.profiles = filepath.Join(b.TempDir(), "profiles")
		args = append(args, "--plugin-profiles", s.profiles)
	}
	s.cmd = exec.Command(filepath.Join(bin, "axon"), args...)
	s.cmd.Env = []string{"HOME=" + b.TempDir()}
	stdout, _ := s.cmd.StdoutPipe()
	if err := s.cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.stop() })
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	s.addr = strings.Fields(strings.TrimPrefix(line, "axon listening on "))[0]
	for _, model := range []string{"default/a", "default/b"} {
		s.post(b, "/v1/chat/completions", `{"model":"`+model+`","messages":[{"role":"user","content":"hi"}]}`)
	}
	s.post(b, "/v1/sessions", `{"session":"bench","prompt":"hi","tools":["clock","fetch","notes"],"max_turns":1,"idempotency_key":"k1"}`)
	s.waitChildren(b)
	return s
}

func (s *piServe) post(b *testing.B, path, body string) {
	resp, err := http.Post(s.addr+path, "application/json", strings.NewReader(body))
	if err != nil {
		b.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
}

// waitChildren waits until every plugin of the set runs under the host.
func (s *piServe) waitChildren(b *testing.B) {
	s.waitFor(b, "start", func(kids map[string]int) string {
		for _, p := range piSet {
			if _, ok := kids[p.binary]; !ok && p.name != "host" && p.name != "epd" {
				return p.binary
			}
		}
		return ""
	})
}

// waitStopped waits until the host runs no plugin (idle_stop stopped them).
func (s *piServe) waitStopped(b *testing.B) {
	s.waitFor(b, "stop", func(kids map[string]int) string {
		for name := range kids {
			return name
		}
		return ""
	})
}

// waitFor polls the host's children until pending names none.
func (s *piServe) waitFor(b *testing.B, what string, pending func(map[string]int) string) {
	deadline := time.Now().Add(60 * time.Second)
	for {
		kids := children(s.cmd.Process.Pid)
		p := pending(kids)
		if p == "" {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("%s did not %s (running: %v)", p, what, kids)
		}
		time.Sleep(50 * time.Millisecond) // a benchmark polls the process table; no test waits this way
	}
}

// snapshot reads the memory of the host and of each plugin it runs.
func (s *piServe) snapshot() map[string]procMem {
	out := map[string]procMem{"host": readProcMem(s.cmd.Process.Pid)}
	kids := children(s.cmd.Process.Pid)
	for _, p := range piSet {
		if pid, ok := kids[p.binary]; ok {
			out[p.name] = readProcMem(pid)
		}
	}
	return out
}

// hostGo reads the host's runtime figures from its pprof listener
// (runtime.MemStats, as heap?debug=1 prints them).
func (s *piServe) hostGo(m *procMem) {
	resp, err := http.Get("http://" + s.pprof + "/debug/pprof/heap?debug=1")
	if err != nil {
		return
	}
	defer resp.Body.Close()
	stats := map[string]int{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if k, v, ok := strings.Cut(strings.TrimPrefix(sc.Text(), "# "), " = "); ok {
			if n, err := strconv.Atoi(strings.Fields(v)[0]); err == nil {
				stats[k] = n
			}
		}
	}
	m.goHeap = stats["HeapAlloc"] / 1024
	m.goFree = (stats["HeapInuse"] - stats["HeapAlloc"] + stats["HeapIdle"] - stats["HeapReleased"]) / 1024
	m.goStacks = stats["Stack"] / 1024 // "Stack = inuse / sys"
}

// cpuProfileBuffers is what a running CPU profile adds to the heap's
// objects: the runtime's sample buffer, 1<<17 words and 1<<14 tags
// (runtime/cpuprof.go, profBufWordCount and profBufTagCount). It is
// allocated whole and touched only as samples arrive, so an idle plugin
// does not have it resident; the table leaves it out of the heap.
const cpuProfileBuffers = (1<<17 + 1<<14) * 8

// stop ends axon gracefully (its plugins then write their profiles) and
// waits for it.
func (s *piServe) stop() {
	if s.cmd.ProcessState != nil {
		return
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		s.cmd.Process.Kill()
		<-done
	}
}

// pluginGo reads a plugin's runtime figures from the metrics.txt it wrote
// into dir when it stopped (with a CPU profile running: see
// cpuProfileBuffers).
func pluginGo(dir string, m *procMem) {
	f, err := os.ReadFile(filepath.Join(dir, "metrics.txt"))
	if err != nil {
		return
	}
	v := map[string]int{}
	for _, line := range strings.Split(string(f), "\n") {
		if k, n, ok := strings.Cut(line, " "); ok {
			x, _ := strconv.ParseFloat(n, 64)
			v[k] = int(x)
		}
	}
	m.goHeap = (v["/memory/classes/heap/objects:bytes"] - cpuProfileBuffers) / 1024
	m.goFree = (v["/memory/classes/heap/free:bytes"] + v["/memory/classes/heap/unused:bytes"]) / 1024
	m.goStacks = v["/memory/classes/heap/stacks:bytes"] / 1024
}

// startEPD starts the epd display plugin as the host would, without a
// panel (none here): the host fetches its Info and it idles unconfigured.
// With a profile directory it writes its runtime figures there when
// stopped.
func startEPD(b *testing.B, bin, profileDir string) (pid int, stop func()) {
	return startBare(b, exec.Command(filepath.Join(bin, "axon-display-epd")), profileDir)
}

// startBare starts the plugin cmd runs, unsandboxed and unconfigured, and
// asks for its Info; stop ends it gracefully (it then writes its runtime
// figures into profileDir, when set).
func startBare(b *testing.B, cmd *exec.Cmd, profileDir string) (pid int, stop func()) {
	if profileDir != "" {
		os.MkdirAll(profileDir, 0o700)
		cmd.Env = []string{pluginrpc.ProfileDirEnv + "=" + profileDir}
	}
	c := plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig: pluginrpc.Handshake, VersionedPlugins: pluginrpc.ClientPlugins(),
		Cmd: cmd, AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		AutoMTLS: true, SkipHostEnv: true, Logger: hclog.NewNullLogger(), StartTimeout: 2 * time.Minute,
	})
	rpc, err := c.Client()
	if err != nil {
		c.Kill()
		b.Fatal(err)
	}
	raw, _ := rpc.Dispense(pluginrpc.NameBase)
	if _, err := raw.(*pluginrpc.BaseClient).Info(context.Background()); err != nil {
		c.Kill()
		b.Fatal(err)
	}
	return c.ReattachConfig().Pid, c.Kill
}

// piRun is one run of the Pi set.
type piRun struct {
	profiles bool           // fill in the Go runtime figures (the plugins then also run a CPU profile, which the RSS columns include)
	settle   time.Duration  // idle time before the reading
	idleStop string         // the axon block's idle_stop: the reading waits until it stopped every plugin
	load     func(*piServe) // run before the reading
}

// measurePiSet runs the Pi set once and returns each process's memory; a
// process that is not running has no entry.
func measurePiSet(b *testing.B, r piRun) map[string]procMem {
	bin := piSetBinaries(b)
	profiles := r.profiles
	s := startPiServe(b, bin, profiles, r.idleStop)
	epdDir := ""
	if profiles {
		epdDir = filepath.Join(b.TempDir(), "epd")
	}
	epdPid, stopEPD := startEPD(b, bin, epdDir)
	if r.load != nil {
		r.load(s)
	}
	if r.idleStop != "" {
		s.waitStopped(b)
	}
	time.Sleep(r.settle)
	mem := s.snapshot()
	mem["epd"] = readProcMem(epdPid)
	h := mem["host"]
	s.hostGo(&h)
	mem["host"] = h
	if !profiles {
		s.stop()
		stopEPD()
		return mem
	}
	s.stop()
	stopEPD()
	for name, inst := range instanceOf {
		dir := filepath.Join(s.profiles, inst)
		if name == "epd" {
			dir = epdDir
		}
		m, ok := mem[name]
		if !ok {
			continue
		}
		pluginGo(dir, &m)
		mem[name] = m
	}
	return mem
}

// memTable formats the per-process table, in MiB, with the goal set's and
// the whole set's sums.
func memTable(title string, mem map[string]procMem, withGo bool) string {
	var sb strings.Builder
	mb := func(kb int) string {
		if kb < 0 {
			return "–"
		}
		return fmt.Sprintf("%.1f", float64(kb)/1024)
	}
	fmt.Fprintf(&sb, "\n%s (MiB)\n| process | RSS | RssAnon | RssFile | PSS | PSS anon | peak RSS |", title)
	if withGo {
		sb.WriteString(" Go heap objects | Go heap free | Go stacks |")
	}
	sb.WriteString("\n|---|---|---|---|---|---|---|")
	if withGo {
		sb.WriteString("---|---|---|")
	}
	row := func(name string, m procMem) {
		if m == (procMem{}) {
			fmt.Fprintf(&sb, "\n| %s | stopped | | | | | |", name)
			if withGo {
				sb.WriteString(" | | |")
			}
			return
		}
		fmt.Fprintf(&sb, "\n| %s | %s | %s | %s | %s | %s | %s |", name, mb(m.rss), mb(m.anon), mb(m.file), mb(m.pss), mb(m.pssAnon), mb(m.hwm))
		if withGo {
			fmt.Fprintf(&sb, " %s | %s | %s |", mb(m.goHeap), mb(m.goFree), mb(m.goStacks))
		}
	}
	sum := func(names []string) procMem {
		var t procMem
		for _, n := range names {
			m := mem[n]
			t.rss, t.anon, t.file, t.pss, t.pssAnon, t.hwm = t.rss+m.rss, t.anon+m.anon, t.file+m.file, t.pss+m.pss, t.pssAnon+m.pssAnon, t.hwm+m.hwm
			t.goHeap, t.goFree, t.goStacks = t.goHeap+max(m.goHeap, 0), t.goFree+max(m.goFree, 0), t.goStacks+max(m.goStacks, 0)
		}
		return t
	}
	var all []string
	for _, p := range piSet {
		row(p.name, mem[p.name])
		all = append(all, p.name)
	}
	row("**goal set** (host+openai+anthropic+epd)", sum(goalSet))
	row("**Pi set** (all seven)", sum(all))
	return sb.String()
}

// reportRSS reports each process's RSS and the goal set's sum as metrics.
func reportRSS(b *testing.B, mem map[string]procMem, suffix string) {
	total := 0
	for _, p := range piSet {
		b.ReportMetric(float64(mem[p.name].rss), p.name+"-RSS-kB"+suffix)
	}
	for _, n := range goalSet {
		total += mem[n].rss
	}
	b.ReportMetric(float64(total), "goal-set-RSS-kB"+suffix)
}

// BenchmarkIdleRSS runs the Pi set, every plugin started by one call, and
// reports each process's memory once idle: RSS, its anonymous and
// file-backed parts, PSS, and the Go runtime's heap. The RSS columns come
// from a plain run; the plugins' Go columns from a second run in which
// every plugin writes its runtime figures when it stops (which needs
// --plugin-profiles, so its plugins also run a CPU profile). A third run
// sets idle_stop = "1s" and reads the set once the supervisor has stopped
// every provider and tool (within its 15 s check), which is also the idle
// figure of examples/pi-pet.hcl once its display has stopped too. AXON_BENCH_SETTLE
// (default 2s) is how long the set idles before each reading.
func BenchmarkIdleRSS(b *testing.B) {
	settle := 2 * time.Second
	if v := os.Getenv("AXON_BENCH_SETTLE"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			b.Fatal(err)
		}
		settle = d
	}
	for range b.N {
	}
	plain := measurePiSet(b, piRun{settle: settle})
	profiled := measurePiSet(b, piRun{profiles: true, settle: settle})
	for name, m := range plain {
		p := profiled[name]
		m.goHeap, m.goFree, m.goStacks = p.goHeap, p.goFree, p.goStacks
		plain[name] = m
	}
	stopped := measurePiSet(b, piRun{settle: settle, idleStop: "1s"})
	reportRSS(b, plain, "")
	reportRSS(b, stopped, "-idle-stop")
	// Printed, not logged: a benchmark's log is cut to ten lines.
	fmt.Println(memTable("Idle, per process (Go columns from the profiled run)", plain, true))
	fmt.Println(memTable("Idle, the profiled run (its plugins run a CPU profile)", profiled, false))
	fmt.Println(memTable(`Idle with idle_stop = "1s", once the providers and tools stopped`, stopped, true))
	// examples/pi-pet.hcl gives its display an idle_stop too (the epd
	// plugin's state_file carries the face on the glass to the next
	// process), so once every plugin has stopped the idle Pi runs the host
	// alone: the host row above. The display runs bare here, without a
	// panel, so the host cannot stop it; its row is the host's either way.
	b.ReportMetric(float64(stopped["host"].rss), "pi-example-RSS-kB")
	fmt.Printf("examples/pi-pet.hcl idle, every plugin stopped (the display too): the host alone, %.1f MiB\n", float64(stopped["host"].rss)/1024)
}

// loadFor sends requests to chain default (its first hop, the openai
// plugin) on conns connections for d, non-streaming then streaming, and
// calls during(), with the load still running, just before it ends.
func loadFor(b *testing.B, s *piServe, conns int, d time.Duration, during func()) (requests int) {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: conns, MaxConnsPerHost: conns}}
	defer client.CloseIdleConnections()
	var mu sync.Mutex
	for _, stream := range []bool{false, true} {
		body := `{"model":"default/a","messages":[{"role":"user","content":"hi"}],"stream":` + strconv.FormatBool(stream) + `}`
		ctx, cancel := context.WithTimeout(context.Background(), d)
		var wg sync.WaitGroup
		for range conns {
			wg.Go(func() {
				n := 0
				for ctx.Err() == nil {
					req, _ := http.NewRequestWithContext(ctx, "POST", s.addr+"/v1/chat/completions", strings.NewReader(body))
					req.Header.Set("Content-Type", "application/json")
					resp, err := client.Do(req)
					if err != nil {
						continue
					}
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode == http.StatusOK {
						n++
					}
				}
				mu.Lock()
				requests += n
				mu.Unlock()
			})
		}
		if stream {
			time.Sleep(d - 500*time.Millisecond)
			during()
		}
		wg.Wait()
		cancel()
	}
	return requests
}

// BenchmarkLoadedRSS runs the Pi set as BenchmarkIdleRSS does, then
// saturates the openai provider from this process (AXON_BENCH_CONNS
// connections, default 64, for AXON_BENCH_LOAD, default 10s, first
// non-streaming, then streaming) and reports each process's memory near
// the end of the streaming load, with its peak (VmHWM) over the whole run,
// then as the load ends, and once the set has idled long enough for
// every process's idle trim (internal/idletrim) to have run.
// The load generator shares the machine with the set, so the requests per
// second here are not the overhead table's.
func BenchmarkLoadedRSS(b *testing.B) {
	d, conns := 10*time.Second, 64
	if v := os.Getenv("AXON_BENCH_LOAD"); v != "" {
		var err error
		if d, err = time.ParseDuration(v); err != nil {
			b.Fatal(err)
		}
	}
	if v := os.Getenv("AXON_BENCH_CONNS"); v != "" {
		var err error
		if conns, err = strconv.Atoi(v); err != nil {
			b.Fatal(err)
		}
	}
	for range b.N {
	}
	var mem, ended map[string]procMem
	var requests int
	idle := measurePiSet(b, piRun{settle: idletrim.After + trimMargin, load: func(s *piServe) {
		requests = loadFor(b, s, conns, d, func() { mem = s.snapshot() })
		ended = s.snapshot() // loadFor returns once every request has been answered
	}})
	mem["epd"], ended["epd"] = idle["epd"], idle["epd"] // not under load: it draws nothing here
	if requests == 0 {
		b.Fatal("no request was answered")
	}
	b.ReportMetric(float64(requests)/(2*d.Seconds()), "req/s")
	reportRSS(b, mem, "-loaded")
	reportRSS(b, idle, "-after-load")
	fmt.Println(memTable(fmt.Sprintf("Under load (%d connections to the openai provider), per process", conns), mem, false))
	fmt.Println(memTable("As the load ended", ended, false))
	fmt.Println(memTable(fmt.Sprintf("Idle %v after the load ended (every process's idle trim has run)", idletrim.After+trimMargin), idle, true))
}

// trimMargin is how long past idletrim.After a reading waits for every
// process's idle trim to have run.
const trimMargin = 5 * time.Second
