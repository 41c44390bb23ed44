# relchain — see README.md
GO ?= go
BIN := bin/relchain
# The benchmark lab: `relchain bench` runs it; not linked into the node.
LAB := bin/relchain-bench

.PHONY: build build-testhooks test test-race race lint demo bench fuzz clean e2e-long

# The commit `relchain version` names, also when GOFLAGS has -buildvcs=false.
COMMIT := $(shell git rev-parse HEAD 2>/dev/null)

build:
	$(GO) build -ldflags "-X main.gitCommit=$(COMMIT)" -o $(BIN) ./cmd/relchain
	$(GO) build -o $(LAB) ./cmd/relchain-bench
	$(GO) build -o bin/relchain-e2e ./cmd/relchain-e2e

# The node binary with test hooks (go build -tags testhooks): the byzantine
# proposer and corrupt-snapshot flags, and backend.unsafe_no_gate, which the
# benchmark's gate-off run needs. Never run it on a real network.
build-testhooks:
	$(GO) build -tags testhooks -o bin/relchain-testhooks ./cmd/relchain

test:
	./scripts/test.sh

test-race:
	RACE=1 ./scripts/test.sh

# The race detector on the unit packages (everything but the e2e networks).
race:
	UNIT_RACE=1 ./scripts/test.sh

lint:
	./scripts/lint.sh

demo: build
	./scripts/demo.sh

bench: build
	./scripts/bench.sh

# The long fault campaign: test/e2e/manifests/long, random fault schedules
# from a printed seed (RELCHAIN_E2E_SEED=<seed> replays one); 30+ minutes.
e2e-long:
	./scripts/e2e-long.sh

# Every fuzz target for FUZZTIME each (default 5m).
fuzz:
	./scripts/fuzz.sh

clean:
	rm -rf bin localnet
