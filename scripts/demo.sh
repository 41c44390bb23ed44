#!/usr/bin/env bash
# The main job on the embedded default: start a 4-validator network on
# SQLite, create a table, write through consensus, read the same answer back
# from every node, show that every node holds the same AppHash, stop.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=./bin/relchain
dir=$(mktemp -d /tmp/relchain-demo.XXXXXX)
export RELCHAIN_HOME="$dir/client"   # the demo's own client key
log="$dir/localnet.out"

"$bin" localnet --validators 4 --home "$dir/net" --base-port 0 >"$log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; echo "network stopped; its files are in $dir"' EXIT
for _ in $(seq 1 300); do
  grep -q ready "$log" && break
  kill -0 $pid 2>/dev/null || { cat "$log"; exit 1; }
  sleep 0.2
done
grep -q ready "$log" || { echo "network did not become ready:"; cat "$log"; exit 1; }
cat "$log"
rpcs=$(python3 -c 'import json,sys; print(" ".join(n["rpc"] for n in json.load(open(sys.argv[1]))))' "$dir/net/nodes.json" 2>/dev/null ||
  grep -o '"rpc": *"[^"]*"' "$dir/net/nodes.json" | sed 's/.*"\(http[^"]*\)"/\1/')
set -- $rpcs
step() { printf '\n\033[1m$ %s\033[0m\n' "$*"; "$@"; }

step "$bin" exec --node "$1" "CREATE TABLE account (id INTEGER PRIMARY KEY, owner TEXT NOT NULL, balance INTEGER NOT NULL CHECK (balance >= 0))"
step "$bin" exec --node "$2" "INSERT INTO account VALUES (?, ?, ?), (?, ?, ?)" 1 alice 100 2 bob 50
step "$bin" exec --node "$3" "UPDATE account SET balance = balance - ?1 WHERE id = 1" 30
step "$bin" exec --node "$3" "UPDATE account SET balance = balance + ?1 WHERE id = 2 RETURNING id, owner, balance" 30
echo; echo "# a transaction that violates a constraint fails alone; nothing is applied:"
step "$bin" exec --node "$4" "UPDATE account SET balance = balance - 1000 WHERE id = 1" || true

height=$("$bin" status --node "$4" --output json | sed -n 's/.*"height": *\([0-9]*\).*/\1/p')
echo; echo "# the same query on every node, at height >= $height:"
for r in "$@"; do
  step "$bin" query --node "$r" --min-height "$height" "SELECT id, owner, balance FROM account ORDER BY id"
done
echo; echo "# every validator holds the same AppHash:"
for r in "$@"; do
  "$bin" status --node "$r" --output json | tr -d '\n ' | sed 's/.*"moniker":"\([^"]*\)".*"height":\([0-9]*\).*"app_hash":"\([^"]*\)".*/\1 height=\2 app_hash=\3/'
  echo
done
