#!/usr/bin/env bash
# Issue 18, item 6 (the paper's Fig. 12): relchain on PostgreSQL (4
# validators) beside PostgreSQL's own replication — a durable primary with 3
# synchronous streaming standbys, synchronous_commit = remote_apply (a commit
# returns once every standby has applied it; Citus is not installable here) —
# on the same machine, the same wl-transactions, grouping and clients
# (relchain-bench --baseline --baseline-replicas 3). Smallbank and TPC-C,
# sync with 1 and 8 clients and async. The chain's databases live on a
# private durable PostgreSQL this script starts (scripts/deps.sh); the
# replicated baseline's four servers are started by relchain-bench in the
# run's directory. Each run holds /tmp/relchain-bench.lock.
#
#   scripts/bench-fig12.sh [OUT_DIR] [NAME...]   (default bench-results/fig12-<date>, all)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh
find_go
ensure_postgres
out=${1:-bench-results/fig12-$(date +%Y%m%d-%H%M%S)}
shift || true
only=" $* "
mkdir -p "$out"
make build >/dev/null
bin=./bin/relchain-bench

start_bench_postgres "$(mktemp -d /tmp/relchain-benchpg.XXXXXX)"
PG=(--backend postgres --baseline --baseline-replicas 3)
TPCC=(--workload tpcc --scale 1 --tpcc-items 10000 --tpcc-customers 1000 --tpcc-orders 1000)

run() {
  local name=$1; shift
  if [ "$only" != "  " ] && [[ "$only" != *" $name "* ]]; then return; fi
  local dir
  dir=$(mktemp -d /tmp/relchain-fig12.XXXXXX)
  echo "== $name: relchain-bench $*" | tee -a "$out/summary.txt"
  # Each run's nodes get databases of their own.
  local tmpl=${bench_pg_template/relchain_/relchain_${name//-/_}_}
  flock /tmp/relchain-bench.lock "$bin" --quiet --validators 4 "$@" --dsn-template "$tmpl" --dir "$dir" --output "$out/$name.json" 2>>"$out/stderr.log" | tee -a "$out/summary.txt"
  rm -rf "$dir"
}

run sb-sync-1 --workload smallbank --scale 10000 --mode sync --clients 1 --txs 300 "${PG[@]}"
run sb-sync-8 --workload smallbank --scale 10000 --mode sync --clients 8 --txs 1000 "${PG[@]}"
run sb-async --workload smallbank --scale 10000 --mode async --txs 3000 "${PG[@]}"
run tpcc-sync-8 "${TPCC[@]}" --mode sync --clients 8 --txs 400 "${PG[@]}"
run tpcc-async "${TPCC[@]}" --mode async --txs 1000 "${PG[@]}"
echo "results in $out"
