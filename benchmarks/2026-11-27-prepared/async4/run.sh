#!/bin/bash
# 4 validators, Smallbank async (1 wl per bc, 10,000 txs) on PostgreSQL with the raw baseline
# (same wl-transactions and grouping), builds alternating: old = 21654ee (unnamed block
# statements), new = prepared block statements + generic plans. Private durable PostgreSQL 15.
cd /tmp/ab4  # old/ and new/ hold relchain and relchain-bench built at 21654ee and 4aaace6
n=0
for r in 1 2 3; do
  for side in old new; do
    n=$((n+1))
    echo "== round $r $side"
    RELCHAIN_BIN=/tmp/ab4/$side/relchain ./$side/relchain-bench --quiet --workload smallbank --mode async --txs 10000 --baseline \
      --backend postgres --dsn-template "postgres://postgres@127.0.0.1:37033/a${n}_{node}?sslmode=disable" --output $side-$r.json 2>>stderr.log | tee $side-$r.txt | grep -E "^smallbank|baseline|per block"
  done
done
