#!/bin/bash
# A/B of the PostgreSQL cost rows on a durable private PostgreSQL 15:
# old (21654ee: unnamed block statements, custom plans) vs new (prepared block statements, generic plans).
cd /tmp/cst  # old = relchain-bench built at 21654ee, new = at the commit of this directory
PG=(--backend postgres --server-pid-file /tmp/pgdur/data/postmaster.pid)
SB=(--workload smallbank --bc-per-block 4 --wl-per-bc 100 --blocks 10)
NO=(--workload neworder --bc-per-block 200 --wl-per-bc 1 --blocks 5)
n=0
for r in 1 2 3; do
  for side in old new; do
    n=$((n+1))
    echo "== round $r $side sb-postgres"
    ./$side cost --turns 3 --quiet "${SB[@]}" "${PG[@]}" --dsn-template "postgres://postgres@127.0.0.1:37033/s${n}_{node}?sslmode=disable" --output sb-$side-$r.json | tee sb-$side-$r.txt | grep -E "median|ratio"
  done
done
for r in 1 2; do
  for side in old new; do
    n=$((n+1))
    echo "== round $r $side no-postgres"
    ./$side cost --turns 3 --quiet "${NO[@]}" "${PG[@]}" --dsn-template "postgres://postgres@127.0.0.1:37033/n${n}_{node}?sslmode=disable" --output no-$side-$r.json | tee no-$side-$r.txt | grep -E "median|ratio"
  done
done
