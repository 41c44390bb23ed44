# relchain — see README.md
GO ?= go
BIN := bin/relchain

.PHONY: build test test-race lint demo bench fuzz clean

build:
	$(GO) build -o $(BIN) ./cmd/relchain

test:
	./scripts/test.sh

test-race:
	RACE=1 ./scripts/test.sh

lint:
	./scripts/lint.sh

demo: build
	./scripts/demo.sh

bench: build
	./scripts/bench.sh

# Every fuzz target for FUZZTIME each (default 5m).
fuzz:
	./scripts/fuzz.sh

clean:
	rm -rf bin localnet
