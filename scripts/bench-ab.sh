#!/usr/bin/env bash
# Alternating A/B throughput runs of two relchain revisions, for costs that no
# switch can turn off (BENCHMARKS.md). Both builds run the same `relchain
# bench` command in turn, RUNS times each (A B, B A, A B ...), against a private
# PostgreSQL cluster when BACKEND is postgres; prints every run's tx/s and the
# medians.
#
#   scripts/bench-ab.sh REV_A REV_B RUNS sqlite|postgres [relchain bench flags...]  (e.g. --workload update --mode async)
#   e.g. scripts/bench-ab.sh 2a8e15d HEAD 3 postgres --validators 4 --mode async --txs 20000 --clients 16
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh
find_go
[ $# -ge 4 ] || { sed -n '2,10p' "$0"; exit 2; }
a=$1 b=$2 runs=$3 backend=$4
shift 4
tmp=$(mktemp -d /tmp/relchain-ab.XXXXXX)
chmod 755 "$tmp"
cleanup() {
  [ -x "$tmp/testdb" ] && "$tmp/testdb" -kind postgres -dir "$tmp/pg" -stop >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap cleanup EXIT
# Each side gets its own directory: relchain, and the benchmark lab
# relchain-bench beside it that its `relchain bench` runs (revisions before
# cmd/relchain-bench had the lab inside relchain).
for side in a b; do
  rev=${!side}
  git worktree add -f --detach "$tmp/src-$side" "$rev" >/dev/null 2>&1
  mkdir -p "$tmp/$side"
  (cd "$tmp/src-$side" && go build -o "$tmp/$side/relchain" ./cmd/relchain &&
    if [ -d cmd/relchain-bench ]; then go build -o "$tmp/$side/relchain-bench" ./cmd/relchain-bench; fi)
  git worktree remove --force "$tmp/src-$side"
done
extra=()
if [ "$backend" = postgres ]; then
  ensure_postgres
  go build -o "$tmp/testdb" ./backend/internal/serverdb/cmd/testdb
  dsn=$("$tmp/testdb" -kind postgres -dir "$tmp/pg")
  extra=(--backend postgres --dsn-template "$(echo "$dsn" | sed 's|/postgres?|/relchain_{node}?|')")
fi
declare -A tps
# Rounds alternate which side goes first (A B, B A, A B, ...): runs leave
# their databases and the server's background work behind, so a fixed order
# handed the later side a slower machine (4 validators on PostgreSQL, two
# 3-run A/Bs with the builds swapped: the first of each pair averaged 1,682
# wl-tx/s, the second 1,454, whichever build it was).
for i in $(seq "$runs"); do
  order="a b"
  [ $((i % 2)) -eq 0 ] && order="b a"
  for side in $order; do
    "$tmp/$side/relchain" bench "${extra[@]}" "$@" --output "$tmp/run.json" >"$tmp/run.log" 2>&1 \
      || { cat "$tmp/run.log"; exit 1; }
    t=$(jq -r '"\(.tps|floor) \(.succeeded) \(.failed)"' "$tmp/run.json")
    echo "run $i ${side^^} (${!side}): tx/s, succeeded, failed: $t"
    tps[$side]+="${t%% *} "
  done
done
median() { tr ' ' '\n' | grep . | sort -n | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
ma=$(echo "${tps[a]}" | median)
mb=$(echo "${tps[b]}" | median)
echo "median tx/s: A ($a) $ma, B ($b) $mb; B/A = $(awk -v a="$ma" -v b="$mb" 'BEGIN {printf "%.3f", b/a}')"
