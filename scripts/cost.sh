#!/usr/bin/env bash
# Issue 19, item 7: what the executor costs over the raw database, in
# process (no consensus, no network): `relchain-bench cost` runs one
# executor and the raw baseline on the same backend kind (two SQLite files
# in one directory, or two databases on one private durable PostgreSQL or
# MariaDB server this script starts), the same wl-transaction stream in the
# same grouping, executor and raw in alternating turns, and reports CPU µs
# per wl-transaction of each (Go process + the server's process tree) and
# their ratio (medians of the turns). Rows:
#   sb-sqlite, sb-postgres, sb-mysql: Smallbank, blocks of 4 x 100
#   no-sqlite, no-postgres: TPC-C NewOrder, one warehouse, blocks of 200 x 1
#   sba-sqlite, sba-postgres: Smallbank in the grouping of the 4-validator
#     async runs, one wl-transaction per bc-transaction and 1,000 of them
#     per block: what one validator executes there (only when named)
# plus CPU profiles of the executor and of the raw baseline (sb-sqlite,
# sb-postgres, no-postgres: one extra, unmeasured turn each) with their top
# 10, and the executor's profile against the raw one (NAME-diff.txt). Each row holds
# /tmp/relchain-bench.lock, so it does not overlap another benchmark.
#
#   scripts/cost.sh [OUT_DIR] [ROW...]   (default bench-results/cost-<date>, all rows)
#   TURNS=5 scripts/cost.sh              (turns per side, default 3)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh
find_go
out=${1:-bench-results/cost-$(date +%Y%m%d-%H%M%S)}
shift || true
only=" $* "
want() { [ "$only" = "  " ] || [[ "$only" == *" $1 "* ]]; }
named() { [[ "$only" == *" $1 "* ]]; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
go build -o "$out/relchain-bench" ./cmd/relchain-bench
bin=$out/relchain-bench
turns=${TURNS:-3}

if want sb-postgres || want no-postgres || named sba-postgres; then
  ensure_postgres
  pgdir=$(mktemp -d /tmp/relchain-costpg.XXXXXX)
  start_bench_postgres "$pgdir"
  PG=(--backend postgres --dsn-template "$bench_pg_template" --server-pid-file "$pgdir/cluster/data/postmaster.pid")
fi
if want sb-mysql; then
  ensure_mariadb
  mydir=$(mktemp -d /tmp/relchain-costmy.XXXXXX)
  start_bench_mariadb "$mydir"
  MY=(--backend mysql --dsn-template "$bench_mysql_template" --server-pid-file "$mydir/server/mariadbd.pid")
fi

run() {
  local name=$1; shift
  want "$name" || return 0
  echo "== $name: relchain-bench cost $*" | tee -a "$out/summary.txt"
  flock /tmp/relchain-bench.lock "$bin" cost --turns "$turns" "$@" --output "$out/$name.json" 2>>"$out/progress.log" | tee -a "$out/summary.txt"
  if [ -s "$out/$name.pprof" ]; then
    go tool pprof -top -nodecount=10 "$bin" "$out/$name.pprof" >"$out/$name-top10.txt" 2>/dev/null || true
    go tool pprof -top -cum -nodecount=40 "$bin" "$out/$name.pprof" >"$out/$name-cum.txt" 2>/dev/null || true
    sed -n '1,18p' "$out/$name-top10.txt" | tee -a "$out/summary.txt"
  fi
  if [ -s "$out/$name.pprof" ] && [ -s "$out/$name-raw.pprof" ]; then
    go tool pprof -top -nodecount=40 -diff_base "$out/$name-raw.pprof" "$bin" "$out/$name.pprof" >"$out/$name-diff.txt" 2>/dev/null || true
  fi
}

SB=(--workload smallbank --bc-per-block 4 --wl-per-bc 100 --blocks 10)
NO=(--workload neworder --bc-per-block 200 --wl-per-bc 1 --blocks 5)
run sb-sqlite "${SB[@]}" --backend sqlite --cpuprofile "$out/sb-sqlite.pprof" --raw-cpuprofile "$out/sb-sqlite-raw.pprof" --profile-blocks 100
run sb-postgres "${SB[@]}" "${PG[@]}" --cpuprofile "$out/sb-postgres.pprof" --raw-cpuprofile "$out/sb-postgres-raw.pprof" --profile-blocks 50
run sb-mysql "${SB[@]}" "${MY[@]}"
run no-sqlite "${NO[@]}" --backend sqlite
run no-postgres "${NO[@]}" "${PG[@]}" --cpuprofile "$out/no-postgres.pprof" --raw-cpuprofile "$out/no-postgres-raw.pprof" --profile-blocks 20
SBA=(--workload smallbank --bc-per-block 1000 --wl-per-bc 1 --blocks 4)
if named sba-sqlite; then run sba-sqlite "${SBA[@]}" --backend sqlite; fi
if named sba-postgres; then run sba-postgres "${SBA[@]}" "${PG[@]}" --cpuprofile "$out/sba-postgres.pprof" --raw-cpuprofile "$out/sba-postgres-raw.pprof" --profile-blocks 8; fi
echo "results in $out"
