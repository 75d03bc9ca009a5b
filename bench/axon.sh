# bench/axon.sh — sourced by overhead.sh and profile.sh: build axon, write its
# configuration and start and stop `axon serve` for the harness. Not run on its own.
#
# axon gets one openai-plugin provider whose base_url is the mock upstream, a
# dummy credential (env AXON_BENCH_KEY), egress { max_concurrent } no lower than
# the benchmark's connections, a free loopback port, and a state_dir
# and HOME in a temporary directory; the chain is "default", the model string
# clients send. Settings (environment): GO (go), PIN (1: axon on CPU 1, as run.sh
# pins its servers), NICE (0).

ROOT=$(cd "$HERE/.." && pwd)
GO=${GO:-go}
# The build tags make exports (Makefile, GOTAGS), when run without make.
export GOFLAGS=${GOFLAGS--tags=grpcnotrace}
PIN=${PIN:-1}
NICE=${NICE:-0}

die() { echo "${0##*/}: $*" >&2; exit 1; }

# free_port: a loopback TCP port nothing listens on, not handed out before in this run.
TAKEN_PORTS=" "
free_port() {
  local p _
  for _ in $(seq 200); do
    p=$((20000 + RANDOM % 40000))
    [[ $TAKEN_PORTS == *" $p "* ]] && continue
    if [[ -z $(ss -ltnH "sport = :$p" 2>/dev/null) ]]; then TAKEN_PORTS+="$p "; echo "$p"; return; fi
  done
  die "no free loopback port found"
}

# build_axon DIR: axon, the openai plugin and the echo example plugin, built
# from this checkout into DIR (not bin/, which other builds may replace while
# the benchmark runs).
build_axon() {
  mkdir -p "$1"
  (cd "$ROOT" && CGO_ENABLED=0 "$GO" build -o "$1/axon" ./host/cmd/axon \
    && CGO_ENABLED=0 "$GO" build -o "$1/axon-provider-openai" ./plugins/provider-openai \
    && CGO_ENABLED=0 "$GO" build -o "$1/axon-provider-echo" ./examples/provider-echo)
}

# build_harness DIR: the mock upstream and the bare reverse proxy.
build_harness() {
  mkdir -p "$1"
  (cd "$HERE/mockupstream" && "$GO" build -o "$1/mockupstream" .)
  (cd "$HERE/rproxy" && "$GO" build -o "$1/rproxy" .)
}

# max_concurrent: the provider's egress { max_concurrent }, AXON_MAX_CONCURRENT
# or the most connections any run opens (SAT_CONC, CONC). At the default 16 the
# egress refuses the 17th request in flight at once, and a 64-connection run
# would measure refusals and retries instead of the cost of a request.
max_concurrent() {
  local n=${AXON_MAX_CONCURRENT:-$(( ${SAT_CONC:-64} > ${CONC:-16} ? ${SAT_CONC:-64} : ${CONC:-16} ))}
  (( n >= 1 && n <= 1024 )) || die "max_concurrent $n: want 1..1024 (AXON_MAX_CONCURRENT)"
  echo "$n"
}

# write_config FILE LISTEN_ADDR UPSTREAM_ADDR STATE_DIR PLUGIN_DIR
write_config() {
  local maxc; maxc=$(max_concurrent)
  cat >"$1" <<EOF
# Written by bench/axon.sh for one benchmark run.
axon {
  listen     = "$2"
  state_dir  = "$4"
  plugin_dir = "$5"
}

provider "mock" {
  plugin     = "openai"
  base_url   = "http://$3/v1"
  model      = "gpt-4o-mini"
  credential = env("AXON_BENCH_KEY")

  egress {
    max_concurrent = $maxc
  }
}

chain "default" {
  providers = [provider.mock]
}
EOF
}

# write_echo_config FILE LISTEN_ADDR STATE_DIR PLUGIN_DIR: axon with one
# provider, the echo example plugin, which answers from the prompt without an
# upstream or an egress. Its prefix makes the answer the mock's: 16 "lorem"
# text chunks (then the prompt's two words), so run.sh's pre-flight passes
# and both answers are the same size. It measures the front door and one
# plugin crossing alone.
write_echo_config() {
  cat >"$1" <<EOF
# Written by bench/axon.sh for one benchmark run.
axon {
  listen     = "$2"
  state_dir  = "$3"
  plugin_dir = "$4"
}

provider "echo" {
  plugin = "echo"
  prefix = "$(printf 'lorem %.0s' $(seq 16))"
}

chain "default" {
  providers = [provider.echo]
}
EOF
}

# start_axon BIN_DIR CONFIG LISTEN_ADDR LOG [serve flags...]: starts
# `axon serve` (pinned to CPU 1 with PIN=1) in a clean environment, waits for
# /healthz, sets AXON_PID. Children (the plugin processes) inherit the pinning.
AXON_PID=
start_axon() {
  local bin=$1 cfg=$2 addr=$3 log=$4; shift 4
  local home; home=$(dirname "$cfg")/home
  mkdir -p "$home"
  local pin=() nice=()
  [[ $PIN == 1 ]] && pin=(taskset -c 1)
  [[ $NICE != 0 ]] && nice=(nice -n "$NICE")
  "${pin[@]}" "${nice[@]}" env -i PATH="$PATH" HOME="$home" TMPDIR="${TMPDIR:-/tmp}" AXON_BENCH_KEY=sk-bench-dummy \
    "$bin/axon" serve --config "$cfg" "$@" >"$log" 2>&1 &
  AXON_PID=$!
  local _
  for _ in $(seq 100); do
    curl -fsS -m 1 "http://$addr/healthz" >/dev/null 2>&1 && return 0
    alive "$AXON_PID" || { cat "$log" >&2; die "axon serve exited at start (log above)"; }
    sleep 0.1
  done
  cat "$log" >&2
  die "axon serve did not answer /healthz on $addr within 10 s"
}

# alive PID: running, not a zombie waiting to be reaped.
alive() { [[ -r /proc/$1/stat ]] && [[ $(sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1) != Z ]]; }

# stop_axon [PID]: SIGTERM to AXON_PID's axon, or PID's (plugins stop
# gracefully and write their profiles), then SIGKILL after 20 s.
stop_axon() {
  local pid=${1:-$AXON_PID}
  [[ -n $pid ]] || return 0
  kill -TERM "$pid" 2>/dev/null || true
  local _
  for _ in $(seq 200); do
    alive "$pid" || break
    sleep 0.1
  done
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  [[ $pid != "$AXON_PID" ]] || AXON_PID=
}
