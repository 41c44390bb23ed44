#!/bin/bash
# A/B of the in-process cost rows: old (8873065: LtHash through crypto/aes
# and addLanes) vs new (49122f1: the assembly expansion, VAES on this CPU),
# alternating, every row on the same private servers.
# Usage: run.sh OLD_DIR NEW_DIR OUT_DIR PG_PORT PGDATA MY_PORT MY_PID_FILE ROUNDS
set -euo pipefail
old=$1 new=$2 out=$3 pgport=$4 pgdata=$5 myport=$6 mypid=$7 rounds=${8:-3}
mkdir -p "$out"
SB=(--workload smallbank --bc-per-block 4 --wl-per-bc 100)
NO=(--workload neworder --bc-per-block 200 --wl-per-bc 1 --blocks 5)
PG=(--backend postgres --server-pid-file "$pgdata/postmaster.pid")
MY=(--backend mysql --server-pid-file "$mypid")
row() {
  local name=$1; shift
  for side in old new; do
    dir=$old; [ $side = new ] && dir=$new
    echo "== round $r $side $name"
    "$dir/relchain-bench" cost --turns 5 --quiet "$@" --output "$out/$name-$side-$r.json" \
      | tee "$out/$name-$side-$r.txt" | grep -E "ratio"
  done
}
for r in $(seq 1 "$rounds"); do
  row sb-sqlite "${SB[@]}" --blocks 30 --backend sqlite
  row no-sqlite "${NO[@]}" --backend sqlite
  row sb-postgres "${SB[@]}" --blocks 10 "${PG[@]}" --dsn-template "postgres://postgres@127.0.0.1:$pgport/sb${r}_{node}_$RANDOM?sslmode=disable"
  row no-postgres "${NO[@]}" "${PG[@]}" --dsn-template "postgres://postgres@127.0.0.1:$pgport/no${r}_{node}_$RANDOM?sslmode=disable"
  row sb-mysql "${SB[@]}" --blocks 10 "${MY[@]}" --dsn-template "root@tcp(127.0.0.1:$myport)/sb${r}_{node}_$RANDOM"
done
