#!/usr/bin/env bash
# Issue 6, item 5 (Measure): Smallbank raw vs chain on MySQL/MariaDB beside
# SQLite and PostgreSQL, in one invocation: sync (one client, --txs 300) and
# async (--txs 3000), 4 validators, --baseline (the raw DBMS on the same
# wl-transactions and grouping) and --verify. PostgreSQL and MariaDB are
# private, durable servers this script starts (scripts/deps.sh). Each run
# holds /tmp/relchain-bench.lock, so it does not overlap another benchmark
# on this machine.
#
#   scripts/bench-mysql.sh [OUT_DIR] [NAME...]   (default bench-results/mysql-<date>, all)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh
find_go
ensure_postgres
ensure_mariadb
out=${1:-bench-results/mysql-$(date +%Y%m%d-%H%M%S)}
shift || true
only=" $* "
mkdir -p "$out"
make build >/dev/null
bin=./bin/relchain-bench

start_bench_postgres "$(mktemp -d /tmp/relchain-benchpg.XXXXXX)"
start_bench_mariadb "$(mktemp -d /tmp/relchain-benchmy.XXXXXX)"
PG=(--backend postgres --dsn-template "$bench_pg_template")
MY=(--backend mysql --dsn-template "$bench_mysql_template")

run() {
  local name=$1; shift
  if [ "$only" != "  " ] && [[ "$only" != *" $name "* ]]; then return; fi
  echo "== $name: relchain-bench $*" | tee -a "$out/summary.txt"
  flock /tmp/relchain-bench.lock "$bin" --quiet --validators 4 "$@" --output "$out/$name.json" 2>>"$out/stderr.log" | tee -a "$out/summary.txt"
}

for backend in sqlite postgres mysql; do
  case $backend in
    sqlite) args=() ;;
    postgres) args=("${PG[@]}") ;;
    mysql) args=("${MY[@]}") ;;
  esac
  run "sb-sync-$backend" --workload smallbank --mode sync --txs 300 --baseline --verify "${args[@]}"
  run "sb-async-$backend" --workload smallbank --mode async --txs 3000 --baseline --verify "${args[@]}"
done
echo "results in $out"
