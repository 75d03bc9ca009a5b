package cli

import (
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/axonhq/axon/host/internal/browser"
)

// BenchmarkPanelRSS measures what the open panel costs the host: the Pi
// set's host process idle, then with the panel open in a headless Chromium
// (its live event stream connected), after 50 turns it showed live and
// every page loaded once.
//
//	go test -run '^$' -bench PanelRSS -benchtime 1x ./host/cli/
//
// AXON_BENCH_SETTLE (default 2s) is how long the host idles before each
// reading. The browser's own memory is not counted: it runs on the
// viewer's machine, not the Pi.
func BenchmarkPanelRSS(b *testing.B) {
	settle := 2 * time.Second
	if v := os.Getenv("AXON_BENCH_SETTLE"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			b.Fatal(err)
		}
		settle = d
	}
	const turns = 50
	for range b.N {
		s := startPiServe(b, piSetBinaries(b), false, "")
		time.Sleep(settle)
		idle := readProcMem(s.cmd.Process.Pid)

		br := browser.New(b)
		br.Navigate(s.addr + "/")
		br.WaitText("#live-status", "live")
		for range turns {
			s.post(b, "/v1/chat/completions", `{"model":"default","messages":[{"role":"user","content":"hi"}]}`)
		}
		// The feed keeps 50 turns: the page shows them all once the last
		// event arrived.
		br.WaitVisible(".turn:nth-child(" + strconv.Itoa(turns) + ")")
		for _, tab := range []string{"roster", "stats", "try", "knobs", "live"} {
			br.Click("#tab-" + tab)
			br.WaitVisible("#page-" + tab)
			if tab == "stats" {
				br.WaitVisible(`figure[data-chart="requests"] svg`)
			}
		}
		time.Sleep(settle)
		open := readProcMem(s.cmd.Process.Pid)
		br.Close()
		s.stop()

		b.ReportMetric(float64(idle.rss), "host-idle-RSS-kB")
		b.ReportMetric(float64(open.rss), "host-panel-RSS-kB")
		b.ReportMetric(float64(open.hwm), "host-peak-RSS-kB")
		b.Logf("host RSS idle %.1f MiB, with the panel open after %d live turns %.1f MiB (peak %.1f MiB); PSS %.1f → %.1f MiB",
			mib(idle.rss), turns, mib(open.rss), mib(open.hwm), mib(idle.pss), mib(open.pss))
	}
}

func mib(kb int) float64 { return float64(kb) / 1024 }
