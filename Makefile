# axon — build, test and run. `make run` and `make test` are all a fresh
# machine needs (Go 1.26 installed); everything else is fetched here.

GO      ?= go
BIN     ?= bin
export CGO_ENABLED ?= 0

# Build tags for every go command make runs, exported through GOFLAGS so that
# the go builds the tests and benchmarks run get them too. grpcnotrace leaves
# grpc's request tracing (golang.org/x/net/trace, and html/template with it)
# out of every binary: axon never turns it on, and each binary is about
# 0.4 MB smaller, all of which every process maps (docs/decisions.md).
GOTAGS ?= grpcnotrace
export GOFLAGS := -tags=$(GOTAGS) $(GOFLAGS)

# Every directory with a main.go under plugins/ and examples/ is a plugin
# (examples/client-* are client programs and examples/mcp-* MCP servers, not
# plugins): plugins/provider-openai -> bin/axon-provider-openai.
PLUGIN_DIRS := $(filter-out examples/client-% examples/mcp-%,$(patsubst %/main.go,%,$(wildcard plugins/*/main.go examples/*/main.go)))

# Every binary is stamped with -ldflags -X. VERSION is `git describe --tags
# --always --dirty`: the nearest tag, the commits since it and the abbreviated
# hash (v0.3.0-4-g1a2b3c4), or the bare hash when there is no tag, with
# "-dirty" for uncommitted changes; an exact tag names one commit too. So
# VERSION already says which commit a build is: plugins get only it (their
# Info.Version, main.version), axon gets it and COMMIT (`axon version`).
# Without git: dev and unknown, as in a plain go build. `make VERSION=v1.0.0`
# overrides; the second assignment runs git once, not at every use.
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT  ?= $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
VERSION := $(VERSION)
COMMIT  := $(COMMIT)
HOST_LDFLAGS   := -X github.com/axonhq/axon/host/cli.Version=$(VERSION) -X github.com/axonhq/axon/host/cli.Commit=$(COMMIT)
PLUGIN_LDFLAGS := -X main.version=$(VERSION)

STATICCHECK        := honnef.co/go/tools/cmd/staticcheck@v0.8.2
PROTOC_GEN_GO      := google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.12
PROTOC_GEN_GO_GRPC := google.golang.org/grpc/cmd/protoc-gen-go-grpc@v1.6.2

.PHONY: all build run test test-deps test-race vet lint fuzz bench bench-overhead bench-profile bench-deps proto pi test-arm64 fixtures screenshots clean

all: build

# Always rebuilt; go's own cache makes that cheap.
build:
	$(GO) build -ldflags="$(HOST_LDFLAGS)" -o $(BIN)/axon ./host/cmd/axon
	@for d in $(PLUGIN_DIRS); do \
		echo "$(GO) build -ldflags=\"$(PLUGIN_LDFLAGS)\" -o $(BIN)/axon-$$(basename $$d) ./$$d"; \
		$(GO) build -ldflags="$(PLUGIN_LDFLAGS)" -o $(BIN)/axon-$$(basename $$d) ./$$d || exit 1; \
	done

# Builds everything and starts the broker with the configuration it finds
# (--config, $$AXON_CONFIG, ~/.config/axon/axon.hcl, else the embedded default).
run: build
	$(BIN)/axon serve --plugin-dir $(BIN) $(ARGS)

vet:
	$(GO) vet ./...

# staticcheck at a pinned version (installed into bin/tools), and gofmt:
# any file it would reformat fails the build.
lint:
	GOBIN=$(CURDIR)/$(BIN)/tools $(GO) install $(STATICCHECK)
	$(CURDIR)/$(BIN)/tools/staticcheck ./...
	@out="$$(gofmt -l $$(find . -name '*.go' -not -path './$(BIN)/*'))"; \
	if [ -n "$$out" ]; then echo "gofmt would reformat:"; echo "$$out"; exit 1; fi

# The sandbox tests map subordinate ids with newuidmap/newgidmap (Debian
# uidmap); the browser tests (host/internal/browser) drive Debian's headless
# chromium, with fonts-dejavu-core so text in screenshots is glyphs, not
# boxes; the npm client tests (examples/client-*-sdk/npm) run Debian's
# nodejs and npm. As root (CI) the missing ones are installed, one apt-get
# for all; otherwise the tests that need them say so. With everything
# present this is five lookups, no apt.
test-deps:
	@pkgs=""; \
	command -v newuidmap >/dev/null || pkgs="$$pkgs uidmap"; \
	command -v chromium >/dev/null || pkgs="$$pkgs chromium"; \
	[ -e /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || pkgs="$$pkgs fonts-dejavu-core"; \
	command -v node >/dev/null || pkgs="$$pkgs nodejs"; \
	command -v npm >/dev/null || pkgs="$$pkgs npm"; \
	if [ -z "$$pkgs" ]; then :; \
	elif [ "$$(id -u)" != 0 ]; then echo "test-deps: not root, not installing$$pkgs (the tests that need them skip)"; \
	else echo "test-deps: installing$$pkgs"; apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $$pkgs; fi

# The fuzz targets' seed corpora (recorded requests, streams and configs,
# and every crasher found so far) run in the plain go test above, so CI is
# deterministic. make test FUZZTIME=30s also mutates them; make fuzz does
# only that (default 10s a target).
# One pass over every package, under the race detector (test-race): a
# plain pass on top would run the same assertions again. The OpenAI client
# example is a module of its own (its client stays out of axon's go.mod),
# so it gets a go test of its own.
test: vet lint test-deps
	@$(MAKE) --no-print-directory test-race
	@if [ -n "$(FUZZTIME)" ]; then $(MAKE) --no-print-directory fuzz FUZZTIME=$(FUZZTIME); fi

# The race detector over every package: all of their tests run under -race
# (measured 2026-12-02), so nothing is excluded. The binaries the tests start
# as subprocesses are built without it (host/internal/testbin), as shipped.
test-race:
	CGO_ENABLED=1 $(GO) test -count=1 -race -timeout 10m ./...
	cd examples/client-openai-sdk && CGO_ENABLED=1 $(GO) test -count=1 -race -timeout 5m ./...

# Mutates each fuzz target's seed corpus for FUZZTIME. -fuzz takes one
# target in one package, hence a line each. An input that fails is written
# to the package's testdata/fuzz/<target>/ and then runs in every go test.
fuzz: FUZZTIME ?= 10s
fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzOpenAIRequest$$' -fuzztime $(FUZZTIME) ./host/api/
	$(GO) test -run '^$$' -fuzz '^FuzzAnthropicRequest$$' -fuzztime $(FUZZTIME) ./host/api/
	$(GO) test -run '^$$' -fuzz '^FuzzResponsesRequest$$' -fuzztime $(FUZZTIME) ./host/api/
	$(GO) test -run '^$$' -fuzz '^FuzzSSEReader$$' -fuzztime $(FUZZTIME) ./sdk/sse/
	$(GO) test -run '^$$' -fuzz '^FuzzHCLParse$$' -fuzztime $(FUZZTIME) ./hcl/config/

# The Go benchmarks, then issue 14's overhead table and the profiles under
# the same load (bench/README.md). DURATION=5 REPS=1 make bench is a short try.
bench: build bench-deps
	$(GO) test -run '^$$' -bench . -benchmem -benchtime 2000x ./host/daemon/
	$(GO) test -run '^$$' -bench 'Generate|Egress' -benchmem -benchtime 2000x ./host/supervisor/
	$(GO) test -run '^$$' -bench PluginStart -benchtime 50x ./host/supervisor/
	AXON_BENCH_BIN=$(abspath $(BIN)) $(GO) test -run '^$$' -bench 'IdleRSS|LoadedRSS|Arm64|PanelRSS' -benchtime 1x ./host/cli/
	$(GO) test -run '^$$' -bench . -benchmem ./host/chain/ ./host/wal/ ./host/api/
	$(GO) test -run '^$$' -bench . -benchmem ./plugins/...
	@$(MAKE) --no-print-directory bench-overhead
	@$(MAKE) --no-print-directory bench-profile

# direct vs a bare Go proxy hop vs axon (host + plugin): CPU per request, max
# requests/s, p50/p99, RSS, in one interleaved run (bench/overhead.sh; about
# 8 minutes at the defaults). Prints the table, keeps it in bench/out/.
bench-overhead: bench-deps
	GO=$(GO) bench/overhead.sh

# pprof CPU and allocation profiles of the host and of the openai plugin
# under saturating load, with a `go tool pprof -top` of each, in
# bench/out/profile/<mode>/ (bench/profile.sh).
bench-profile: bench-deps
	GO=$(GO) bench/profile.sh

# What the bench scripts run besides go: Debian's wrk, curl, iproute2 (ss),
# util-linux (taskset) and procps (pgrep), and qemu-user-static, with which
# BenchmarkArm64Binaries runs the arm64 plugins; installed here when missing.
bench-deps:
	@pkgs=""; \
	for dep in wrk:wrk curl:curl ss:iproute2 taskset:util-linux pgrep:procps qemu-aarch64-static:qemu-user-static; do \
		command -v $${dep%%:*} >/dev/null || pkgs="$$pkgs $${dep#*:}"; \
	done; \
	if [ -n "$$pkgs" ]; then echo "installing$$pkgs"; apt-get update && apt-get install -y $$pkgs; fi

# Regenerates internal/pluginrpc/pb from plugin.proto. Needs protoc (Debian
# protobuf-compiler, installed here when missing); make test never does.
proto:
	command -v protoc >/dev/null || { apt-get update && apt-get install -y protobuf-compiler; }
	GOBIN=$(CURDIR)/$(BIN)/tools $(GO) install $(PROTOC_GEN_GO)
	GOBIN=$(CURDIR)/$(BIN)/tools $(GO) install $(PROTOC_GEN_GO_GRPC)
	cd internal/pluginrpc/pb && PATH="$(CURDIR)/$(BIN)/tools:$$PATH" $(GO) generate .

# Cross-compiles axon and every plugin for the Raspberry Pi (linux/arm64).
PI_DIR := $(BIN)/linux-arm64
pi:
	GOOS=linux GOARCH=arm64 CGO_ENABLED=0 $(GO) build -trimpath -ldflags="-s -w $(HOST_LDFLAGS)" -o $(PI_DIR)/axon ./host/cmd/axon
	@for d in $(PLUGIN_DIRS); do \
		echo "build $(PI_DIR)/axon-$$(basename $$d)"; \
		GOOS=linux GOARCH=arm64 CGO_ENABLED=0 $(GO) build -trimpath -ldflags="-s -w $(PLUGIN_LDFLAGS)" -o $(PI_DIR)/axon-$$(basename $$d) ./$$d || exit 1; \
	done

# Runs the renderer, panel driver and display plugin tests as arm64 binaries
# under qemu (Debian's qemu-user-static, installed here when missing).
ARM64_PKGS := ./hardware/... ./plugins/display-epd/ ./plugins/display-png/ ./plugins/display-term/
test-arm64:
	command -v qemu-aarch64-static >/dev/null || { apt-get update && apt-get install -y qemu-user-static; }
	GOOS=linux GOARCH=arm64 CGO_ENABLED=0 $(GO) test -count=1 -exec qemu-aarch64-static $(ARM64_PKGS)
	# The arm64 seccomp policy (qemu-user cannot load a filter: only the policy tests).
	GOOS=linux GOARCH=arm64 CGO_ENABLED=0 $(GO) test -count=1 -exec qemu-aarch64-static -run 'Policy|Decisions|Lists|Allowed' ./host/sandbox/seccomp/

# Retakes the panel's screenshots in docs/panel/ (README, "The panel") with
# the browser test that checks each page; commit them.
screenshots: test-deps
	AXON_SCREENSHOTS=1 $(GO) test -count=1 -run '^TestPanelInABrowser$$' ./host/cli/

# Refreshes the copy of the shared recorded provider responses that the
# plugin tests replay (never edit the copy; see plugins/testdata/README.md).
SHARED_FIXTURES ?= ../shared/fixtures/wire
fixtures:
	rm -rf plugins/testdata/wire && cp -a $(SHARED_FIXTURES) plugins/testdata/wire

clean:
	rm -rf $(BIN)
