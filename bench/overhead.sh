#!/usr/bin/env bash
# bench/overhead.sh — issue 14's overhead table: direct, a bare Go proxy hop and
# axon (host + provider plugin), side by side, in one interleaved run.
#
#   bench/overhead.sh                 build, run, print the table (make bench-overhead)
#   DURATION=5 REPS=1 bench/overhead.sh   a short try (numbers are noisier)
#   bench/overhead.sh --table OUTDIR  re-print the table of an earlier run
#
# It builds axon, the openai and the echo plugins from this checkout, writes an axon
# config (one openai-plugin provider whose base_url is the mock, a dummy
# credential, a free loopback port, state in a temporary directory), starts
# `axon serve` pinned to CPU 1, and runs bench/run.sh on direct, rproxy and
# axon; run.sh measures axon as its whole process tree. Every run.sh setting
# (DURATION, REPS, WARMUP, CONC, SAT_CONC, CHUNKS, PIN, NICE, ...) passes
# through; the defaults are the issue's. OUT (default
# bench/out/overhead-TIMESTAMP) receives table.md, axon.hcl, axon.log and
# run.sh's files under harness/. With ECHO=1 (the default) a second `axon
# serve`, with the echo example plugin and no upstream, runs beside it as
# target "echo": the front door and one plugin crossing alone, printed in a
# second table of where axon's cost lies (ECHO=0 leaves it out).
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/axon.sh
. "$HERE/axon.sh"

# table HARNESS_DIR: the issue's table from run.sh's results.tsv and header.txt.
table() {
  local dir=$1 settings
  settings=$(sed -n 's/^settings: //p' "$dir/header.txt")
  awk -F'\t' -v settings="$settings" '
  BEGIN {
    n = split(settings, kv, " ")
    for (i = 1; i <= n; i++) { split(kv[i], p, "="); set[p[1]] = p[2] }
  }
  NR == 1 { next }
  {
    g = $2 SUBSEP $3 SUBSEP $4
    runs[g]++; rps[g] += $7; p50[g] += $9; p99[g] += $11; err[$3] += $13
    if ($14 != "-") { cpu[g] += $14; ncpu[g]++; each[g] = each[g] (ncpu[g] > 1 ? " / " : "") sprintf("%.0f", $14) }
    mcpu[g] += $15
    if ($16 != "-") { rss[$3] = $16; if ($17 > hwm[$3]) hwm[$3] = $17 }
    if ($20 + 0 > other + 0) other = $20
    seen[$3] = 1
  }
  function avg(a, g) { return runs[g] ? a[g] / runs[g] : -1 }
  function num(v) { return v < 0 ? "—" : sprintf("%.0f", v) }
  function ratio(a, b) { return (a < 0 || b <= 0) ? "—" : sprintf("%.2f×", a / b) }
  function thousands(v,   s, r) {
    if (v < 0) return "—"
    s = sprintf("%.0f", v); r = ""
    while (length(s) > 3) { r = " " substr(s, length(s) - 2) r; s = substr(s, 1, length(s) - 3) }
    return s r
  }
  # CPU per request of the target (for direct: the mock itself, for scale)
  function cpuof(m, t,   g) {
    g = m SUBSEP t SUBSEP "sat"
    if (t == "direct") return runs[g] ? mcpu[g] / runs[g] : -1
    return ncpu[g] ? cpu[g] / ncpu[g] : -1
  }
  # CPU per request of the target in the latency run: CONC connections,
  # an upstream that waits, so each request finds the processes asleep
  function cpulat(m, t,   g) {
    g = m SUBSEP t SUBSEP "lat"
    if (t == "direct") return runs[g] ? mcpu[g] / runs[g] : -1
    return ncpu[g] ? cpu[g] / ncpu[g] : -1
  }
  # " (run / run ...)": the CPU figure of each run, after the mean, when there were several
  function spread(m, t, kind,   g) {
    g = m SUBSEP t SUBSEP kind
    return ncpu[g] > 1 ? " (" each[g] ")" : ""
  }
  function lat(m, t,   g) { g = m SUBSEP t SUBSEP "lat"; return runs[g] ? sprintf("%.0f / %.0f", avg(p50, g), avg(p99, g)) : "—" }
  function dlat(m,   a, b) {
    a = m SUBSEP "axon" SUBSEP "lat"; b = m SUBSEP "rproxy" SUBSEP "lat"
    if (!runs[a] || !runs[b]) return "—"
    return sprintf("%+.0f / %+.0f µs", avg(p50, a) - avg(p50, b), avg(p99, a) - avg(p99, b))
  }
  function mib(t) { return (t in rss) ? sprintf("%.1f (peak %.1f)", rss[t] / 1024, hwm[t] / 1024) : "—" }
  function row(label, d, r, a, q) { printf "| %s | %s | %s | %s | %s |\n", label, d, r, a, q }
  END {
    up = set["LAT_LATENCY"] " ± " set["LAT_JITTER"] * 100 " %"
    print "| | direct (mock) | bare Go proxy hop | axon (host + plugin) | axon / proxy |"
    print "|---|---|---|---|---|"
    split("nonstream stream", M, " ")
    for (i = 1; i <= 2; i++) {
      m = M[i]; label = (m == "stream") ? "streaming " set["CHUNKS"] " chunks" : "non-streaming"
      row("CPU per request, " label ", saturated (µs)", num(cpuof(m, "direct")), num(cpuof(m, "rproxy")) spread(m, "rproxy", "sat"), num(cpuof(m, "axon")) spread(m, "axon", "sat"), ratio(cpuof(m, "axon"), cpuof(m, "rproxy")))
    }
    for (i = 1; i <= 2; i++) {
      m = M[i]; label = (m == "stream") ? "streaming" : "non-streaming"
      row("CPU per request, " label ", " set["CONC"] " connections, " up " upstream (µs)", num(cpulat(m, "direct")), num(cpulat(m, "rproxy")) spread(m, "rproxy", "lat"), num(cpulat(m, "axon")) spread(m, "axon", "lat"), ratio(cpulat(m, "axon"), cpulat(m, "rproxy")))
    }
    for (i = 1; i <= 2; i++) {
      m = M[i]; label = (m == "stream") ? "streaming" : "non-streaming"
      d = m SUBSEP "direct" SUBSEP "sat"; r = m SUBSEP "rproxy" SUBSEP "sat"; a = m SUBSEP "axon" SUBSEP "sat"
      row("max requests/s, " label, thousands(avg(rps, d)), thousands(avg(rps, r)), thousands(avg(rps, a)), ratio(avg(rps, a), avg(rps, r)))
    }
    for (i = 1; i <= 2; i++) {
      m = M[i]; label = (m == "stream") ? "streaming" : "non-streaming"
      row("p50 / p99 at " set["CONC"] " connections, " up " upstream, " label " (µs)", lat(m, "direct"), lat(m, "rproxy"), lat(m, "axon"), dlat(m))
    }
    row("RSS after the last saturated run (MiB)", mib("direct"), mib("rproxy"), mib("axon"), ((("axon" in rss) && rss["rproxy"] > 0) ? sprintf("%.2f×", rss["axon"] / rss["rproxy"]) : "—"))
    print ""
    printf "Saturation: %s connections, upstream answers at once; each figure is the mean of %s run(s) of %s (the CPU figures of the proxy and axon also give each run in brackets: read a ratio against that spread). ", set["SAT_CONC"], set["REPS"], set["DURATION"]
    print "CPU is the user + system time of the target (its whole process tree) divided by the requests it completed; for direct it is the cost of the mock itself, which the other columns exclude."
    if (seen["echo"]) {
      print ""
      print "Where the cost lies, saturated: the same answer from axon with the echo example plugin, which has no upstream and no egress, so it pays for the front door and one plugin crossing only. The openai column adds the egress crossing, the upstream call and the translation in the plugin."
      print ""
      print "| | bare Go proxy hop | axon, echo plugin | axon, openai plugin | echo / proxy |"
      print "|---|---|---|---|---|"
      for (i = 1; i <= 2; i++) {
        m = M[i]; label = (m == "stream") ? "streaming" : "non-streaming"
        row("CPU per request, " label " (µs)", num(cpuof(m, "rproxy")), num(cpuof(m, "echo")) spread(m, "echo", "sat"), num(cpuof(m, "axon")), ratio(cpuof(m, "echo"), cpuof(m, "rproxy")))
      }
      for (i = 1; i <= 2; i++) {
        m = M[i]; label = (m == "stream") ? "streaming" : "non-streaming"
        r = m SUBSEP "rproxy" SUBSEP "sat"; e = m SUBSEP "echo" SUBSEP "sat"; a = m SUBSEP "axon" SUBSEP "sat"
        row("max requests/s, " label, thousands(avg(rps, r)), thousands(avg(rps, e)), thousands(avg(rps, a)), ratio(avg(rps, e), avg(rps, r)))
      }
      print ""
    }
    printf "Errors: direct %d, proxy %d, axon %d%s. Other CPU (processes besides wrk, the mock and the target, worst run): %s %%", err["direct"], err["rproxy"], err["axon"], (seen["echo"] ? sprintf(", axon with echo %d", err["echo"]) : ""), (other == "" ? 0 : other)
    print (other + 0 > 5 ? " — the machine was not quiet: the figures are noisy." : ".")
    if (!seen["axon"]) print "axon was skipped (its pre-flight failed): see the run log."
  }' "$dir/results.tsv"
}

if [[ ${1:-} == --table ]]; then
  [[ -r ${2:-}/harness/results.tsv ]] || die "usage: overhead.sh --table OUTDIR"
  table "$2/harness"; exit 0
fi
[[ $# == 0 ]] || die "no arguments (settings are environment variables; see bench/README.md)"

OUT=${OUT:-$HERE/out/overhead-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/axon-bench.XXXXXX")
ECHO=${ECHO:-1}
ECHO_PID=
trap 'stop_axon; stop_axon "$ECHO_PID"; rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM

echo "building axon, the openai and the echo plugins into $OUT/bin"
build_axon "$OUT/bin"
UPSTREAM_ADDR=127.0.0.1:$(free_port)
RPROXY_ADDR=127.0.0.1:$(free_port)
AXON_ADDR=127.0.0.1:$(free_port)
mkdir -p "$TMP/state"
write_config "$OUT/axon.hcl" "$AXON_ADDR" "$UPSTREAM_ADDR" "$TMP/state" "$OUT/bin"
start_axon "$OUT/bin" "$OUT/axon.hcl" "$AXON_ADDR" "$OUT/axon.log"
echo "axon serve pid $AXON_PID on http://$AXON_ADDR (upstream mock $UPSTREAM_ADDR, proxy $RPROXY_ADDR)"
targets=("axon=http://$AXON_ADDR")
if [[ $ECHO == 1 ]]; then
  ECHO_ADDR=127.0.0.1:$(free_port)
  mkdir -p "$TMP/echo/state"
  write_echo_config "$TMP/echo/axon.hcl" "$ECHO_ADDR" "$TMP/echo/state" "$OUT/bin"
  main_pid=$AXON_PID
  start_axon "$OUT/bin" "$TMP/echo/axon.hcl" "$ECHO_ADDR" "$OUT/axon-echo.log"
  ECHO_PID=$AXON_PID AXON_PID=$main_pid
  echo "axon serve (echo plugin) pid $ECHO_PID on http://$ECHO_ADDR"
  targets+=("echo=http://$ECHO_ADDR")
fi

UPSTREAM_ADDR=$UPSTREAM_ADDR RPROXY_ADDR=$RPROXY_ADDR OUT=$OUT/harness \
  GW_MODEL_axon=default GW_PID_axon=$AXON_PID GW_MODEL_echo=default GW_PID_echo=${ECHO_PID:-0} \
  "$HERE/run.sh" "${targets[@]}"

{
  echo "# axon overhead — $(date -u +%Y-%m-%dT%H:%M:%SZ), $(git -C "$ROOT" describe --tags --always --dirty 2>/dev/null || echo unknown)"
  echo
  grep -E '^(host|settings):' "$OUT/harness/header.txt" | sed 's/^/    /'
  echo
  table "$OUT/harness"
  echo
  grep -E '^(idle|end) ' "$OUT/harness/header.txt" | sed 's/^/    /'
} >"$OUT/table.md"
echo
cat "$OUT/table.md"
echo
echo "table:   $OUT/table.md"
echo "details: $OUT/harness/summary.md"
