#!/usr/bin/env bash
# Issue 18, item 6: a latency study after the methodology of
# ../shared/papers/fabric-vs-cassandra.txt — read and write latency against
# network size (1, 4, 7, 10 validators) and offered load (closed-loop
# clients: 1, 8, 32), for read/write mixes 95/5, 50/50 and 5/95 (YCSB
# records, uniform keys; reads through the query path, writes through
# consensus), relchain on PostgreSQL beside PostgreSQL's own synchronous
# replication (a primary with 3 standbys, remote_apply) running the same
# wl-transactions with the same clients (relchain-bench --baseline
# --baseline-replicas 3). Each run's per-kind p50/p95 (Read, Update) are in
# its JSON and summary. Each run holds /tmp/relchain-bench.lock.
#
#   scripts/bench-latency-study.sh [--quick] [OUT_DIR]
#     --quick: 50/50 at 1, 4, 7, 10 validators with 8 clients, and 95/5 and
#     5/95 at 4 validators (6 runs instead of 36)
set -euo pipefail
cd "$(dirname "$0")/.."
quick=0
if [ "${1:-}" = --quick ]; then quick=1; shift; fi
. scripts/deps.sh
find_go
ensure_postgres
out=${1:-bench-results/latency-study-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out"
make build >/dev/null
bin=./bin/relchain-bench
start_bench_postgres "$(mktemp -d /tmp/relchain-benchpg.XXXXXX)"

run() { # run NAME VALIDATORS CLIENTS READ_WEIGHT UPDATE_WEIGHT
  local name=$1 v=$2 c=$3 r=$4 u=$5 dir
  dir=$(mktemp -d /tmp/relchain-study.XXXXXX)
  local tmpl=${bench_pg_template/relchain_/relchain_${name//-/_}_}
  local args=(--quiet --validators "$v" --clients "$c" --workload ycsb-a --scale 10000 --mode sync
    --txs $((c * 40)) --mix "Read:$r,Update:$u" --backend postgres --dsn-template "$tmpl"
    --baseline --baseline-replicas 3 --dir "$dir" --output "$out/$name.json")
  echo "== $name: relchain-bench ${args[*]}" | tee -a "$out/summary.txt"
  flock /tmp/relchain-bench.lock "$bin" "${args[@]}" 2>>"$out/stderr.log" | tee -a "$out/summary.txt"
  rm -rf "$dir"
}

if [ $quick = 1 ]; then
  for v in 1 4 7 10; do run "v$v-c8-r50" "$v" 8 50 50; done
  run v4-c8-r95 4 8 95 5
  run v4-c8-r5 4 8 5 95
else
  for v in 1 4 7 10; do
    for c in 1 8 32; do
      for mix in 95:5 50:50 5:95; do
        run "v$v-c$c-r${mix%%:*}" "$v" "$c" "${mix%%:*}" "${mix##*:}"
      done
    done
  done
fi
echo "results in $out"
