# The README's commands. Each installs what it needs first (scripts/setup.sh).
SWIFT ?= swift
# Warnings are errors: the package builds with zero warnings or not at all.
SWIFT_FLAGS := -Xswiftc -warnings-as-errors
# Tests load Bitcoin Core's kernel through this variable (set here, by the build).
export PEERNODE_KERNEL_LIB := $(CURDIR)/.build/kernel/libbitcoinkernel.so

.PHONY: setup build test fuzz clean

setup:
	@./scripts/setup.sh

build: setup
	$(SWIFT) build $(SWIFT_FLAGS)

test: setup
	$(SWIFT) build --build-tests $(SWIFT_FLAGS)
	$(SWIFT) test --skip-build --disable-swift-testing

# libFuzzer targets for the Transport module (Fuzz/README.md); FUZZ_RUNS inputs per target.
FUZZ_RUNS ?= 1000000
fuzz: setup
	./Fuzz/run.sh $(FUZZ_RUNS)

clean:
	rm -rf .build
