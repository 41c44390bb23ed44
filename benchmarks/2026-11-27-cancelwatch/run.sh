#!/bin/bash
# A/B of the PostgreSQL cost rows: old (f151154: pgx watches each statement's
# context with a goroutine of its own) vs new (watchStatement: context.AfterFunc).
# Usage: run.sh PORT PGDATA OLD_DIR NEW_DIR OUT_DIR
set -euo pipefail
port=$1 pgdata=$2 old=$3 new=$4 out=$5
mkdir -p "$out"
PG=(--backend postgres --server-pid-file "$pgdata/postmaster.pid")
SB=(--workload smallbank --bc-per-block 4 --wl-per-bc 100 --blocks 10)
NO=(--workload neworder --bc-per-block 200 --wl-per-bc 1 --blocks 5)
n=0
for r in 1 2 3; do
  for side in old new; do
    n=$((n+1)); dir=$old; [ $side = new ] && dir=$new
    echo "== round $r $side sb-postgres"
    "$dir/relchain-bench" cost --turns 3 --quiet "${SB[@]}" "${PG[@]}" \
      --dsn-template "postgres://postgres@127.0.0.1:$port/s${n}_{node}?sslmode=disable" \
      --output "$out/sb-$side-$r.json" | tee "$out/sb-$side-$r.txt" | grep -E "median|ratio"
  done
done
for r in 1 2; do
  for side in old new; do
    n=$((n+1)); dir=$old; [ $side = new ] && dir=$new
    echo "== round $r $side no-postgres"
    "$dir/relchain-bench" cost --turns 3 --quiet "${NO[@]}" "${PG[@]}" \
      --dsn-template "postgres://postgres@127.0.0.1:$port/n${n}_{node}?sslmode=disable" \
      --output "$out/no-$side-$r.json" | tee "$out/no-$side-$r.txt" | grep -E "median|ratio"
  done
done
