#!/usr/bin/env bash
# Measures recovery of a SQLite validator with 100,000 accounts from a
# checkpoint about 100 blocks behind the chain (BENCHMARKS.md, issue 4):
# the time of `relchain recover` and of the replay until the node is back
# at the network's height.
#
#   scripts/bench-recover.sh [WORK_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh
find_go
make build >/dev/null
bin=$PWD/bin/relchain
lab=$PWD/bin/relchain-bench
work=${1:-$(mktemp -d /tmp/relchain-recover.XXXXXX)}
rm -rf "$work/net"; mkdir -p "$work"
"$bin" testnet --validators 4 --output "$work/net" --base-port 0 --open --sql-dialect sqlite >/dev/null
for i in 0 1 2 3; do
  sed -i 's/^\( *every = \).*/\150/; s/^\( *keep = \).*/\18/' "$work/net/node$i/config/relchain.toml"
done
pids=()
start() { "$bin" node --home "$work/net/node$1" >>"$work/net/node$1/node.log" 2>&1 & pids[$1]=$!; }
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT
for i in 0 1 2 3; do start $i; done
rpc() { python3 -c "import json;print(json.load(open('$work/net/nodes.json'))[$1]['rpc'])"; }
height() { curl -s "$(rpc $1)/status" | python3 -c "import json,sys;print(json.load(sys.stdin)['result']['sync_info']['latest_block_height'])" 2>/dev/null || echo 0; }
wait_height() { # node height, within 120 s
  local deadline=$((SECONDS + 120))
  until [ "$(height "$1")" -ge "$2" ] 2>/dev/null; do
    [ $SECONDS -lt $deadline ] || { echo "node$1 did not reach height $2; see $work/net/node$1/node.log" >&2; exit 1; }
    sleep 0.05
  done
}
wait_height 0 1
nodes=$(for i in 0 1 2 3; do rpc $i; done | paste -sd, -)
# 100,000 accounts, then 300 commit-mode updates (one block each, plus the
# blocks that carry their AppHashes).
"$lab" --workload update --nodes "$nodes" --rows 100000 --mode commit --txs 300 >/dev/null 2>&1
tip=$(height 0)
kill "${pids[3]}"; wait "${pids[3]}" 2>/dev/null || true
# Keep only checkpoints at least 100 blocks behind the tip.
for f in "$work"/net/node3/data/checkpoints/checkpoint-*.db; do
  h=${f##*checkpoint-}; h=${h%.db}
  if [ "$h" -gt $((tip - 100)) ]; then rm -f "$f"; fi
done
t0=$(date +%s.%N)
"$bin" recover --home "$work/net/node3"
t1=$(date +%s.%N)
start 3
target=$(height 0)
wait_height 3 "$target"
t2=$(date +%s.%N)
python3 - "$t0" "$t1" "$t2" "$tip" <<'PY'
import sys
t0, t1, t2, tip = map(float, sys.argv[1:])
print(f"chain tip {int(tip)}: recover {t1-t0:.2f} s, restart + replay to the tip {t2-t1:.2f} s, total {t2-t0:.2f} s")
PY
"$bin" verify --home "$work/net/node1" >/dev/null && echo "node1 verifies"
