#!/bin/bash
# 4 validators, Smallbank async (1 wl per bc, 10,000 txs) on PostgreSQL with the raw
# baseline (same wl-transactions and grouping), builds alternating: old = f151154 with the
# tuned raw baseline of 0292e65 (bench/raw driverContext), new = 0292e65. One private
# durable PostgreSQL 15. Usage: run.sh PORT OLD_DIR NEW_DIR OUT_DIR
set -uo pipefail
port=$1 old=$2 new=$3 out=$4
n=0
for r in 1 2 3; do
  for side in old new; do
    n=$((n+1)); dir=$old; [ $side = new ] && dir=$new
    echo "== round $r $side"
    RELCHAIN_BIN=$dir/relchain "$dir/relchain-bench" --quiet --workload smallbank --mode async --txs 10000 --baseline \
      --backend postgres --dsn-template "postgres://postgres@127.0.0.1:$port/a${n}_{node}?sslmode=disable" \
      --output "$out/$side-$r.json" 2>>"$out/stderr.log" | tee "$out/$side-$r.txt" | grep -E "^smallbank|baseline|per block"
  done
done
