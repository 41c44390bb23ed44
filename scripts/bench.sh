#!/usr/bin/env bash
# The measurements of BENCHMARKS.md ("core node" section). Each run starts its
# own loopback network and, with --ceiling, CometBFT's kvstore app on an
# identically configured network, so every ratio is taken side by side.
# PostgreSQL runs are against a private, durable (fsync on) cluster.
#
#   scripts/bench.sh [OUT_DIR]        (default bench-results/<date>)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh
find_go
ensure_postgres
out=${1:-bench-results/$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out"
make build >/dev/null
bin=./bin/relchain-bench

start_bench_postgres "$(mktemp -d /tmp/relchain-benchpg.XXXXXX)"
tmpl=$bench_pg_template

run() {
  local name=$1; shift
  echo "== $name: relchain-bench $*" | tee -a "$out/summary.txt"
  "$bin" --workload update "$@" --output "$out/$name.json" 2>>"$out/stderr.log" | tee -a "$out/summary.txt"
}

# Commit-mode latency: one client, 500 single-row UPDATEs.
for v in 1 4; do
  run "commit-sqlite-$v" --validators "$v" --txs 500 --ceiling
  run "commit-postgres-$v" --validators "$v" --txs 500 --backend postgres --dsn-template "$tmpl" --ceiling
done
# Async throughput: 20,000 single-row UPDATEs over 100,000 rows, 4 validators.
# 16 concurrent submitters: fewer leave the nodes idle between RPCs (see BENCHMARKS.md).
run async-sqlite-4 --validators 4 --mode async --txs 20000 --clients 16 --ceiling
run async-postgres-4 --validators 4 --mode async --txs 20000 --clients 16 --backend postgres --dsn-template "$tmpl" --ceiling
# How timeout_commit and gossip pacing set commit latency (4 validators, SQLite).
# SWEEP=0 skips this part.
[ "${SWEEP:-1}" = 1 ] || { echo "results in $out"; exit 0; }
for tc in 0s 5ms 10ms 20ms 50ms; do
  run "tc-$tc" --validators 4 --txs 200 --timeout-commit "$tc" --ceiling
done
run tc-10ms-cometbft-gossip --validators 4 --txs 50 --timeout-commit 10ms --cometbft-gossip-defaults --ceiling
run tc-0s-cometbft-gossip --validators 4 --txs 50 --timeout-commit 0s --cometbft-gossip-defaults --ceiling
echo "results in $out"
