#!/usr/bin/env bash
# A/B of the PostgreSQL cost rows: old (a3023b8, DELETE ... RETURNING) vs new (TRUNCATE after large blocks)
set -euo pipefail
cd /work/main
. scripts/deps.sh
find_go
ensure_postgres
pgdir=$(mktemp -d /tmp/relchain-abpg.XXXXXX)
start_bench_postgres "$pgdir"
PG=(--backend postgres --dsn-template "$bench_pg_template" --server-pid-file "$pgdir/cluster/data/postmaster.pid")
NO=(--workload neworder --bc-per-block 200 --wl-per-bc 1 --blocks 5)
SB=(--workload smallbank --bc-per-block 4 --wl-per-bc 100 --blocks 10)
out=/tmp/abpg/res; mkdir -p $out
for r in 1 2; do
  for side in old new; do
    echo "== round $r $side no-postgres"
    /tmp/abpg/$side cost --turns 3 --quiet "${NO[@]}" "${PG[@]}" --output $out/no-$side-$r.json | tee $out/no-$side-$r.txt | grep -E "median|ratio"
  done
done
for r in 1 2; do
  for side in old new; do
    echo "== round $r $side sb-postgres"
    /tmp/abpg/$side cost --turns 3 --quiet "${SB[@]}" "${PG[@]}" --output $out/sb-$side-$r.json | tee $out/sb-$side-$r.txt | grep -E "median|ratio"
  done
done
