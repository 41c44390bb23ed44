#!/usr/bin/env bash
# Issue 38's network figure: four validators whose databases share one
# private, durable PostgreSQL server, all on this machine's cores, async
# Smallbank (4 clients), serially (--lanes 1) against lanes as a node runs
# them by default (--lanes 4, adaptive: analysed, measured, chosen), in
# alternating runs; the first run also measures CometBFT's kvstore on the
# same network configuration (--ceiling). Each run prints its summary and
# writes its JSON to OUT_DIR.
#
#   scripts/lanes-network.sh [OUT_DIR]   (default bench-results/lanes-network-<date>)
#   ROUNDS=3 TXS=25000 WORKLOAD=smallbank SCALE=10000 LANES=4 RATE=400 scripts/lanes-network.sh
#
# RATE paces the clients (wl-tx/s in all; 0: as fast as they can). Unpaced,
# four validators sharing two cores fall behind the clients within seconds
# and run a few blocks of thousands of txs; a client then holds more than
# the replay window (1,024 nonces) in flight, and a tx that misses its block
# is refused as too old.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh
find_go
ensure_postgres
out=${1:-bench-results/lanes-network-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out"
out=$(cd "$out" && pwd)
go build -o "$out/relchain-bench" ./cmd/relchain-bench
go build -o "$out/relchain" ./cmd/relchain
pgdir=$(mktemp -d /tmp/relchain-lanesnet.XXXXXX)
start_bench_postgres "$pgdir"
rounds=${ROUNDS:-3}
run=0
for round in $(seq 1 "$rounds"); do
  for k in 1 "${LANES:-4}"; do
    run=$((run + 1))
    extra=()
    if [ "$run" = 1 ]; then extra=(--ceiling); fi
    name="round$round-lanes$k"
    echo "== $name"
    "$out/relchain-bench" --workload "${WORKLOAD:-smallbank}" --mode async --txs "${TXS:-25000}" --clients 4 \
      --validators 4 --backend postgres --dsn-template "${bench_pg_template/relchain_/relchain_r${run}_}" \
      --scale "${SCALE:-10000}" --rate "${RATE:-400}" --lanes "$k" --quiet --output "$out/$name.json" "${extra[@]}" | tee "$out/$name.txt"
  done
done
echo "results in $out"
