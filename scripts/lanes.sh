#!/usr/bin/env bash
# Issue 38: what parallel execution (lanes) gives in process. One private,
# durable PostgreSQL server; for each row `relchain-bench cost` runs one
# executor on K lanes and the raw baseline on K connections (each taking
# every K-th wl-transaction of a block into a db-transaction of its own),
# executor and raw in alternating turns on the same stream, and reports
# wall time per wl-transaction (throughput) beside CPU, and how many blocks
# ran on lanes. Rows: YCSB A (updates by key; reads go to the query path)
# uniform at K = 1, 2, 4, 8 and zipfian at K = 1, 4; Smallbank (customers
# looked up by their unique name, keyed by that lookup) uniform at
# K = 1, 2, 4, 8 and zipfian at K = 1, 4; Smallbank with every customer
# named by id (smallbank-id, chainifyDB's form, whose blocks split) uniform
# at K = 1, 2, 4, 8 and zipfian at K = 1, 4; TPC-C NewOrder at K = 1, 4. Blocks of 1,000 bc-transactions of one wl-transaction each
# (the grouping of the 4-validator async runs; NewOrder 200).
#
#   scripts/lanes.sh [OUT_DIR]     (default bench-results/lanes-<date>)
#   TURNS=5 scripts/lanes.sh       (turns per side, default 3)
#   ONLY=smallbank scripts/lanes.sh  (only the rows whose name holds it)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh
find_go
ensure_postgres
out=${1:-bench-results/lanes-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out"
out=$(cd "$out" && pwd)
go build -o "$out/relchain-bench" ./cmd/relchain-bench
pgdir=$(mktemp -d /tmp/relchain-lanespg.XXXXXX)
start_bench_postgres "$pgdir"
turns=${TURNS:-3}
row() {
  local name=$1
  shift
  if [[ -n ${ONLY:-} && $name != *"$ONLY"* ]]; then
    return 0
  fi
  echo "== $name"
  "$out/relchain-bench" cost --backend postgres --dsn-template "$bench_pg_template" \
    --server-pid-file "$pgdir/cluster/data/postmaster.pid" --turns "$turns" --quiet \
    --output "$out/$name.json" "$@" | tee "$out/$name.txt"
}
for k in 1 2 4 8; do
  row "ycsb-uniform-k$k" --workload ycsb --accounts 20000 --bc-per-block 1000 --blocks 4 --lanes "$k"
done
for k in 1 4; do
  row "ycsb-zipfian-k$k" --workload ycsb --accounts 20000 --distribution zipfian --bc-per-block 1000 --blocks 4 --lanes "$k"
done
for k in 1 2 4 8; do
  row "smallbank-uniform-k$k" --workload smallbank --accounts 20000 --bc-per-block 1000 --wl-per-bc 1 --blocks 4 --lanes "$k"
done
for k in 1 4; do
  row "smallbank-zipf-k$k" --workload smallbank --accounts 20000 --distribution zipf --bc-per-block 1000 --wl-per-bc 1 --blocks 4 --lanes "$k"
done
for k in 1 2 4 8; do
  row "smallbank-id-uniform-k$k" --workload smallbank-id --accounts 20000 --bc-per-block 1000 --wl-per-bc 1 --blocks 4 --lanes "$k"
done
for k in 1 4; do
  row "smallbank-id-zipf-k$k" --workload smallbank-id --accounts 20000 --distribution zipf --bc-per-block 1000 --wl-per-bc 1 --blocks 4 --lanes "$k"
done
for k in 1 4; do
  row "neworder-k$k" --workload neworder --bc-per-block 200 --wl-per-bc 1 --blocks 4 --lanes "$k"
done
echo "results in $out"
