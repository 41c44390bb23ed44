#!/usr/bin/env bash
# The targets of issue 5 (BENCHMARKS.md, "Client modes and workloads"): every
# run starts its own 4-validator loopback network (1 where stated) and takes
# its ratios side by side in the same invocation (--baseline: the raw DBMS on
# the same wl-transactions and grouping; --ceiling: CometBFT's kvstore on an
# identical network). PostgreSQL runs use a private, durable cluster.
#
#   scripts/bench-targets.sh [OUT_DIR] [NAME...]   (default bench-results/targets-<date>, all)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh
find_go
ensure_postgres
out=${1:-bench-results/targets-$(date +%Y%m%d-%H%M%S)}
shift || true
only=" $* "
mkdir -p "$out"
make build >/dev/null
bin=./bin/relchain-bench

start_bench_postgres "$(mktemp -d /tmp/relchain-benchpg.XXXXXX)"
tmpl=$bench_pg_template
PG=(--backend postgres --dsn-template "$tmpl")

run() {
  local name=$1; shift
  if [ "$only" != "  " ] && [[ "$only" != *" $name "* ]]; then return; fi
  echo "== $name: relchain-bench $*" | tee -a "$out/summary.txt"
  "$bin" --quiet "$@" --output "$out/$name.json" 2>>"$out/stderr.log" | tee -a "$out/summary.txt"
}

# Smallbank sync, one client: p50 and the ratio to kvstore's p50.
run sb-sync-sqlite --workload smallbank --mode sync --txs 1000 --ceiling --baseline
run sb-sync-postgres --workload smallbank --mode sync --txs 1000 --baseline "${PG[@]}"
# Smallbank async, one wl per bc, 10,000 txs: ratio to kvstore (SQLite), overhead (PostgreSQL).
run sb-async-sqlite --workload smallbank --mode async --txs 10000 --ceiling --baseline
run sb-async-postgres --workload smallbank --mode async --txs 10000 --baseline "${PG[@]}"
# Smallbank pseudo-sync, 100 wl per bc, 8 clients.
run sb-pseudo-sqlite --workload smallbank --mode pseudo --wl-per-bc 100 --clients 8 --txs 100000 --baseline
# TPC-C on PostgreSQL (1 warehouse: the paper had 10, but loading one takes ~40 s through 4 validators here): async NewOrder with 4 and 1 validators,
# sync, and OrderStatus through the query path.
run tpcc-async-neworder-pg4 --workload tpcc --scale 1 --mode async --mix NewOrder --txs 5000 --baseline "${PG[@]}"
run tpcc-async-neworder-pg1 --workload tpcc --scale 1 --mode async --mix NewOrder --txs 5000 --baseline --validators 1 "${PG[@]}"
# --ceiling: kvstore's commit latency on the same network configuration is
# the floor any sync wl-transaction pays (one consensus round).
run tpcc-sync-pg4 --workload tpcc --scale 1 --mode sync --txs 500 --baseline --ceiling "${PG[@]}"
run tpcc-orderstatus-pg4 --workload tpcc --scale 1 --mode sync --mix OrderStatus --txs 2000 --baseline "${PG[@]}"
echo "results in $out"
