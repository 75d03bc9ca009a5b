#!/usr/bin/env bash
# bench/profile.sh — pprof CPU and allocation profiles of the axon host and of
# its openai provider plugin under the overhead benchmark's saturating load.
#
#   bench/profile.sh              both modes (make bench-profile)
#   MODES=stream DURATION=5 bench/profile.sh
#
# For each mode it starts the mock upstream and a fresh `axon serve --pprof
# 127.0.0.1:PORT --plugin-profiles DIR` (both pinned to CPU 1, wrk on CPU 0),
# sends one request (which starts the plugin), then SAT_CONC connections for
# DURATION seconds while it takes the host's CPU profile over the same window
# (/debug/pprof/profile), then the host's allocation profile
# (/debug/pprof/allocs: everything allocated since start), then stops axon,
# whereupon the plugin writes its own two profiles (its whole life: start,
# the request, the load). Written to OUT/<mode>/ (default bench/out/profile):
#
#   host-cpu.pprof  host-allocs.pprof  plugin-cpu.pprof  plugin-allocs.pprof
#   and for each, NAME.top.txt: `go tool pprof -top` (allocs: alloc_space)
#
# Settings: DURATION (15), SAT_CONC (64), CHUNKS (16), MODES ("nonstream
# stream"), TOP (rows per summary, 25; PRINT_TOP rows are printed, 12), PIN,
# NICE, GO. Profiling costs a few per cent of CPU: take the overhead table
# from bench/overhead.sh, not from this run.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/axon.sh
. "$HERE/axon.sh"

DURATION=${DURATION:-15}
SAT_CONC=${SAT_CONC:-64}
CHUNKS=${CHUNKS:-16}
MODES=${MODES:-"nonstream stream"}
TOP=${TOP:-25}
PRINT_TOP=${PRINT_TOP:-12}
OUT=${OUT:-$HERE/out/profile}
(( DURATION >= 1 && DURATION <= 60 )) || die "DURATION must be 1..60 seconds"
command -v wrk >/dev/null || die "wrk not found (make bench-deps installs it)"

mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/axon-profile.XXXXXX")
MOCK_PID=
cleanup() {
  stop_axon
  if [[ -n $MOCK_PID ]]; then kill "$MOCK_PID" 2>/dev/null || true; wait "$MOCK_PID" 2>/dev/null || true; fi
  rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

PINLOAD=() PINSRV=() WRK_THREADS=2
if [[ $PIN == 1 ]]; then
  (( $(nproc) >= 2 )) || die "PIN=1 needs 2 CPUs; use PIN=0"
  PINLOAD=(taskset -c 0) PINSRV=(taskset -c 1) WRK_THREADS=1
fi

echo "building axon, the openai plugin and the mock upstream into $OUT/bin"
build_axon "$OUT/bin"
build_harness "$OUT/bin"
UPSTREAM_ADDR=127.0.0.1:$(free_port)
"${PINSRV[@]}" "$OUT/bin/mockupstream" -addr "$UPSTREAM_ADDR" -chunks "$CHUNKS" -latency 0s 2>"$OUT/mockupstream.log" &
MOCK_PID=$!
for _ in $(seq 50); do curl -fsS -m 1 "http://$UPSTREAM_ADDR/healthz" >/dev/null 2>&1 && break; sleep 0.1; done

for mode in $MODES; do
  case $mode in nonstream) stream=0 ;; stream) stream=1 ;; *) die "unknown mode $mode" ;; esac
  dir=$OUT/$mode
  mkdir -p "$dir"
  rm -rf "$dir/plugins"
  rm -f "$dir"/{host,plugin}-{cpu,allocs}.pprof "$dir"/*.top.txt
  addr=127.0.0.1:$(free_port) pprof=127.0.0.1:$(free_port)
  mkdir -p "$TMP/$mode/state"
  write_config "$dir/axon.hcl" "$addr" "$UPSTREAM_ADDR" "$TMP/$mode/state" "$OUT/bin"
  start_axon "$OUT/bin" "$dir/axon.hcl" "$addr" "$dir/axon.log" --pprof "$pprof" --plugin-profiles "$dir/plugins"
  echo "== $mode: axon serve pid $AXON_PID on http://$addr, pprof on http://$pprof"

  s=""; [[ $stream == 1 ]] && s=',"stream":true'
  code=$(curl -sS -m 30 -o "$dir/preflight.body" -w '%{http_code}' -H 'Content-Type: application/json' \
    -H 'Authorization: Bearer sk-bench-dummy' \
    --data '{"model":"default","messages":[{"role":"user","content":"Say hello."}]'"$s"'}' \
    "http://$addr/v1/chat/completions" || true)
  [[ $code == 200 ]] || { head -c 600 "$dir/preflight.body" >&2; die "$mode: axon answered HTTP $code to the first request (log: $dir/axon.log)"; }

  curl -fsS -m $((DURATION + 30)) -o "$dir/host-cpu.pprof" "http://$pprof/debug/pprof/profile?seconds=$DURATION" &
  cpu_pid=$!
  BENCH_API=openai BENCH_STREAM=$stream BENCH_MODEL=default \
    timeout $((DURATION + 30)) "${PINLOAD[@]}" wrk -t"$WRK_THREADS" -c"$SAT_CONC" -d"${DURATION}s" --timeout 10s \
    -s "$HERE/wrk/chat.lua" "http://$addr" >"$dir/wrk.out" 2>&1 || true
  wait "$cpu_pid" || die "$mode: the host's CPU profile failed"
  curl -fsS -m 30 -o "$dir/host-allocs.pprof" "http://$pprof/debug/pprof/allocs"
  stop_axon

  for kind in cpu allocs; do
    src=$dir/plugins/mock/$kind.pprof
    [[ -s $src ]] || die "$mode: the plugin wrote no $kind profile ($src; log: $dir/axon.log)"
    cp "$src" "$dir/plugin-$kind.pprof"
  done
  result=$(grep '^RESULT' "$dir/wrk.out" || echo "RESULT requests=0")
  echo "load: $result"
  for f in host-cpu host-allocs plugin-cpu plugin-allocs; do
    idx=(); [[ $f == *allocs ]] && idx=(-sample_index=alloc_space)
    "$GO" tool pprof -top -nodecount="$TOP" "${idx[@]}" "$dir/$f.pprof" >"$dir/$f.top.txt" 2>/dev/null \
      || die "go tool pprof could not read $dir/$f.pprof"
    echo
    echo "--- $mode $f ($dir/$f.pprof)"
    # the header (type, time, totals) and the first PRINT_TOP rows
    awk -v n="$PRINT_TOP" '/^ *flat/ { print; rows = 1; next } rows { if (rows++ > n) exit } { print }' "$dir/$f.top.txt"
  done
done
echo
echo "profiles: $OUT/<mode>/{host,plugin}-{cpu,allocs}.pprof and .top.txt; e.g. $GO tool pprof -http 127.0.0.1:8081 $OUT/${MODES%% *}/host-cpu.pprof"
