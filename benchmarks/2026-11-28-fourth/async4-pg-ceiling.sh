#!/usr/bin/env bash
# PostgreSQL 4-validator async with the kvstore ceiling and the raw baseline in one invocation.
set -euo pipefail
cd /work/main
. scripts/deps.sh
find_go
ensure_postgres
out=$1; mkdir -p "$out"
start_bench_postgres "$(mktemp -d /tmp/relchain-benchpg.XXXXXX)"
./bin/relchain-bench --quiet --workload smallbank --mode async --txs 10000 --ceiling --baseline --backend postgres --dsn-template "$bench_pg_template" --output "$out/run.json" 2>>"$out/stderr.log" | tee "$out/summary.txt"
