# relchain — see README.md
GO ?= $(shell command -v go 2>/dev/null || echo /usr/local/go/bin/go)
BIN := bin/relchain
# The benchmark lab: `relchain bench` runs it; not linked into the node.
LAB := bin/relchain-bench

.PHONY: test-bench build build-node build-client build-testhooks build-e2e-clock test test-e2e test-e2e-full test-race race lint compat demo bench bench-fig12 bench-latency-study bench-copy fuzz clean e2e-long

# The commit `relchain version` names, also when GOFLAGS has -buildvcs=false.
COMMIT := $(shell git rev-parse HEAD 2>/dev/null)

build: build-node build-client
	$(GO) build -o $(LAB) ./cmd/relchain-bench
	$(GO) build -o bin/relchain-e2e ./cmd/relchain-e2e

# The node and client binary alone: what `make demo` needs.
build-node:
	@bash -c '. scripts/deps.sh && find_go && ensure_cc'
	$(GO) build -ldflags "-X main.gitCommit=$(COMMIT)" -o $(BIN) ./cmd/relchain

# The client commands without the databases (exec, query, tx, status, keys,
# admin, version): no database driver, no SQL parser, no cgo, so no C
# toolchain is needed.
build-client:
	CGO_ENABLED=0 $(GO) build -ldflags "-X main.gitCommit=$(COMMIT)" -o bin/relchain-client ./cmd/relchain-client

# The node binary with test hooks (go build -tags testhooks): the byzantine
# proposer and corrupt-snapshot flags, and backend.unsafe_no_gate, which the
# benchmark's gate-off run needs. Never run it on a real network.
build-testhooks:
	$(GO) build -tags testhooks -o bin/relchain-testhooks ./cmd/relchain

# The fault-injection node binary of the e2e harness's clock faults (go build
# -tags e2e_clock: RELCHAIN_E2E_CLOCK_OFFSET shifts its wall clock); for
# relchain-e2e --clock-bin. Never a release binary.
build-e2e-clock:
	$(GO) build -tags e2e_clock -o bin/relchain-e2e-clock ./cmd/relchain

# The fast loop (under 10 minutes on 2 cores): go vet, every unit package
# against a private PostgreSQL and MariaDB, and of the multi-process
# networks in ./test one per backend, the CLI and the default binary's
# hooks (FAST_NETWORK_TESTS in scripts/test.sh).
test:
	./scripts/test.sh

# The network matrix CI runs: every other test of ./test, the CI manifests
# of ./test/e2e and the e2e harness's clock fault (-tags e2e_clock), in two
# jobs side by side (RELCHAIN_E2E_JOB). The scenarios sampled over
# backends (onBackendsSampled) run on SQLite and one database server.
# About 20 minutes on 2 cores.
test-e2e:
	E2E=1 ./scripts/test.sh

# test-e2e with every backend of the sampled scenarios (SQLite too where
# another test covers it there) and the fault manifests of every engine
# (test/e2e/manifests/engines, a partitioned network over three engines
# among them): about 12 minutes more than test-e2e; not in CI.
test-e2e-full:
	RELCHAIN_E2E_FULL=1 E2E=1 ./scripts/test.sh

# The benchmark workloads loaded through consensus as tests (Smallbank,
# TPC-C, YCSB on 4-validator networks, checked against the raw baseline):
# the lab's long set (go test -tags benchset), about 10 minutes; not in CI.
test-bench:
	BENCH=1 ./scripts/test.sh

# Everything, test and test-e2e, under the race detector.
test-race:
	RACE=1 ./scripts/test.sh

# The race detector on the unit packages (everything but the e2e networks),
# built with -tags testhooks.
race:
	UNIT_RACE=1 ./scripts/test.sh

lint:
	./scripts/lint.sh

# The differential suite of the postgres dialect on SQLite (issue 35): the
# corpus and RELCHAIN_DIFF_SECONDS (default 300) of random cases, each on
# PostgreSQL and on translated SQLite, compared
# (backend/sqlite/pgdialect/difftest). Uses RELCHAIN_TEST_PG, or else a
# private PostgreSQL cluster; RELCHAIN_DIFF_SEED replays a seed.
test-dialect-diff:
	RELCHAIN_DIFF_PG=private RELCHAIN_DIFF_SECONDS=$${RELCHAIN_DIFF_SECONDS:-300} \
		$(GO) test ./backend/sqlite/pgdialect/difftest -count=1 -v -timeout 60m

# The client compatibility suite alone (psql, pgcli, psycopg, SQLAlchemy,
# Alembic, Django, pgjdbc, node-postgres, knex, Sequelize, pgx, GORM,
# pgbench on a 4-validator PostgreSQL network); regenerates
# test/compat/COMPATIBILITY.md from its results. `make test-e2e` runs it too.
compat:
	COMPAT=1 RELCHAIN_SKIP_MYSQL=1 ./scripts/test.sh

demo: build-node
	./scripts/demo.sh

bench: build
	./scripts/bench.sh

# The paper's Fig. 12: relchain on PostgreSQL beside a primary with 3
# synchronous standbys (remote_apply); Smallbank and TPC-C. About 15 minutes.
bench-fig12: build
	./scripts/bench-fig12.sh

# The Fabric-vs-Cassandra-style latency study (1/4/7/10 validators, 1/8/32
# clients, 95/5, 50/50, 5/95); STUDY=--quick runs 6 of its 36 points.
bench-latency-study: build
	./scripts/bench-latency-study.sh $(STUDY)

# COPY of 100,000 rows through node 0's listener beside the same rows as multi-row INSERT
# bc-transactions, median of 3 (bench/copy.go). RELCHAIN_BENCH_COPY=sqlite,postgres with
# RELCHAIN_BENCH_PG_TEMPLATE='postgres://…/copy_{node}?sslmode=disable' for both.
bench-copy: build-node
	RELCHAIN_BENCH_COPY=$${RELCHAIN_BENCH_COPY:-sqlite} RELCHAIN_BENCH_BIN=$(abspath $(BIN)) \
		$(GO) test ./bench -run TestMeasureCopy -count=1 -v -timeout 60m

# The long fault campaign: test/e2e/manifests/long, random fault schedules
# from a printed seed (RELCHAIN_E2E_SEED=<seed> replays one); 30+ minutes.
e2e-long:
	./scripts/e2e-long.sh

# Every fuzz target for FUZZTIME each (default 5m).
fuzz:
	./scripts/fuzz.sh

# BENCHMARKS.md, today's figures, from benchmarks/current.json (tools/benchsummary).
.PHONY: bench-summary
bench-summary:
	$(GO) run ./tools/benchsummary -data benchmarks/current.json -out BENCHMARKS.md

clean:
	rm -rf bin localnet
