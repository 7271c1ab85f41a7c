# The README's commands. Each installs what it needs first (scripts/setup.sh).
SWIFT ?= swift
# Warnings are errors: the package builds with zero warnings or not at all.
SWIFT_FLAGS := -Xswiftc -warnings-as-errors
# Tests load Bitcoin Core's kernel through this variable (set here, by the build).
export PEERNODE_KERNEL_LIB := $(CURDIR)/.build/kernel/libbitcoinkernel.so

.PHONY: setup setup-electrumx setup-status setup-pkarr build test bench hub fuzz demo testnet testnet-all soak clean

setup:
	@./scripts/setup.sh

# setup plus ElectrumX in .build/electrumx-venv (hash-pinned, scripts/electrumx.sh): only the
# targets that run the electrumx-* scenarios ask for it (about 20 s once, then 0.1 s).
setup-electrumx:
	@./scripts/setup.sh --electrumx

# setup plus what the status API's tests use: prometheus-client in .build/prometheus-venv
# (hash-pinned, scripts/prometheus-client.sh) and Debian's chromium for the browser test.
setup-status:
	@./scripts/setup.sh --status

# setup plus dnspython in .build/dnspython-venv (hash-pinned, scripts/dnspython.sh): the DNS
# library the pkarr codec's tests run both ways.
setup-pkarr:
	@./scripts/setup.sh --pkarr

build: setup
	$(SWIFT) build $(SWIFT_FLAGS)

# Everything CI runs: the unit and integration suites, plus the demo, every multi-node
# scenario but the `electrum` and `load` sets' (112 of 125: the kill -9 sets of both directions, the adversaries, the floods,
# ElectrumX and a pay, a kill -9 and a reorg on it, a server that swallows broadcasts, the hostile-client kit, the chain, 50 concurrent reverse swaps, both rails,
# the cooperative spends, pkarr) and a 1-minute soak (65 to 90 s). XCTest runs last so its summary closes the output.
test: setup-electrumx setup-status setup-pkarr
	$(SWIFT) build --build-tests $(SWIFT_FLAGS)
	$(foreach product,$(TESTNET_PRODUCTS),$(SWIFT) build --product $(product) $(SWIFT_FLAGS) &&) true
	.build/debug/peernode-testnet demo
	.build/debug/peernode-testnet scenarios --all --jobs $(SCENARIO_JOBS)
	.build/debug/peernode-testnet soak --minutes 1
	./scripts/readme-by-hand
	$(SWIFT) test --skip-build --disable-swift-testing

# Scenarios at once in `make test` (ScenarioScheduler: each in its own process; the load
# scenarios run alone). Most of a scenario's time is waiting for blocks and processes.
SCENARIO_JOBS ?= 2

# libFuzzer targets for the Transport module (Fuzz/README.md); FUZZ_RUNS inputs per target.
FUZZ_RUNS ?= 1000000
fuzz: setup
	./Fuzz/run.sh $(FUZZ_RUNS)

clean:
	rm -rf .build

# Transport benchmarks (issue 3) and LND REST connection set-up over TLS against plain HTTP
# (issue 15, the hub in-process), then the swap benchmark on the regtest hub (issue 9:
# accept -> claim latency, swaps/s through one provider, memory per in-flight swap): release
# builds, figures and ratios from one run. BENCH_ARGS="--swaps 200 --concurrent 50" (add
# --plain-lnd for the nodes on plain HTTP to LND, to compare with TLS). Then issue 22's
# flood figures: honest connect-and-quote latency during each flood, CPU per handshake (docs/PEERS.md).
# Then issue 18's: accept -> claim of 40 sequential swaps with every node on Bitcoin Core, then on a
# real ElectrumX, in the same run (docs/ELECTRUM.md, "Figures"). Then issue 17's: the same through the
# script path and the key path (docs/MUSIG2.md). Then issue 16's: 100 sequential submarine swaps, lock
# confirmed -> claim in the mempool, and 50 pays at once with both directions mixed against reverse alone.
BENCH_ARGS ?=
bench: setup setup-electrumx
	$(SWIFT) build -c release --product peernode-bench $(SWIFT_FLAGS)
	.build/release/peernode-bench || { test $$? -eq 3 && echo "peernode-bench: some goals not met (the met column says which)"; }
	$(foreach product,$(TESTNET_PRODUCTS),$(SWIFT) build -c release --product $(product) $(SWIFT_FLAGS) &&) true
	.build/release/peernode-testnet bench $(BENCH_ARGS)
	.build/release/peernode-testnet bench-floods
	.build/release/peernode-testnet bench --chain electrum --swaps 40
	.build/release/peernode-testnet bench --coop --swaps 40
	.build/release/peernode-testnet bench --submarine --swaps 100

# The regtest hub: Bitcoin Core JSON-RPC and LND REST on loopback; prints its endpoints as
# JSON and runs until Ctrl-C. Extra flags: make hub HUB_ARGS="--ln-node alice:500000".
HUB_ARGS ?= --ln-node alice:500000 --ln-node bob:0
hub: setup
	$(SWIFT) build --product peernode-regtest $(SWIFT_FLAGS)
	.build/debug/peernode-regtest $(HUB_ARGS)

# The demo (issue 9): the hub and six peernode daemons on loopback; a client with Lightning
# funds only pays an on-chain-only contact 20,000 sat through the cheaper provider among its
# contacts, and the run checks the amounts. It stops everything it started when it ends.
# peernode-adversary is the hostile-peer kit the hostile-* scenarios run (testnet/README.md).
TESTNET_PRODUCTS := peernode peernode-regtest peernode-adversary peernode-testnet
demo: setup
	$(foreach product,$(TESTNET_PRODUCTS),$(SWIFT) build --product $(product) $(SWIFT_FLAGS) &&) true
	.build/debug/peernode-testnet demo

# The multi-node scenarios: the quick set; `make testnet-all` runs every one, and
# TESTNET_ARGS picks some by name (`make testnet TESTNET_ARGS="no-provider"`).
TESTNET_ARGS ?=
testnet: setup-electrumx
	$(foreach product,$(TESTNET_PRODUCTS),$(SWIFT) build --product $(product) $(SWIFT_FLAGS) &&) true
	.build/debug/peernode-testnet scenarios $(TESTNET_ARGS)

# Every scenario, then the demo with every node on a real ElectrumX (issue 18).
testnet-all: setup-electrumx
	$(foreach product,$(TESTNET_PRODUCTS),$(SWIFT) build --product $(product) $(SWIFT_FLAGS) &&) true
	.build/debug/peernode-testnet scenarios --all electrum load --jobs $(SCENARIO_JOBS) $(TESTNET_ARGS)
	.build/debug/peernode-testnet demo --chain electrum

# The soak (issue 9): random payments and swaps, half of the swaps with a kill -9 at a
# random persisted state, on one network for SOAK_MINUTES; prints swaps done, crashes
# injected and funds lost (must be 0). SOAK_ARGS="--seed S" replays a run's choices.
SOAK_MINUTES ?= 10
SOAK_ARGS ?=
soak: setup
	$(foreach product,$(TESTNET_PRODUCTS),$(SWIFT) build --product $(product) $(SWIFT_FLAGS) &&) true
	.build/debug/peernode-testnet soak --minutes $(SOAK_MINUTES) $(SOAK_ARGS)
