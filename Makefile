# relchain — see README.md
GO ?= go
BIN := bin/relchain

.PHONY: build test test-race lint demo bench clean

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

clean:
	rm -rf bin localnet
