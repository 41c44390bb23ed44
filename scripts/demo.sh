#!/usr/bin/env bash
# The main job on the embedded default: start a 4-validator network on
# SQLite speaking PostgreSQL's SQL (a new network's default), create a
# table, write through consensus, read the same answer back from every
# node, show that every node holds the same AppHash, stop.
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
grep -q "SQL dialect postgres" "$log" || { echo "the new network does not speak PostgreSQL's SQL (the default)"; exit 1; }
rpcs=$(python3 -c 'import json,sys; print(" ".join(n["rpc"] for n in json.load(open(sys.argv[1]))))' "$dir/net/nodes.json" 2>/dev/null ||
  grep -o '"rpc": *"[^"]*"' "$dir/net/nodes.json" | sed 's/.*"\(http[^"]*\)"/\1/')
set -- $rpcs
step() { printf '\n\033[1m$ %s\033[0m\n' "$*"; "$@"; }

# The network speaks PostgreSQL's SQL (the default of a new network,
# translated onto SQLite; docs/dialects.md): $1.. are the placeholders,
# in single quotes so that the shell leaves them alone.
step "$bin" exec --node "$1" 'CREATE TABLE account (id BIGINT PRIMARY KEY, owner TEXT NOT NULL, balance BIGINT NOT NULL CHECK (balance >= 0))'
step "$bin" exec --node "$2" 'INSERT INTO account VALUES ($1, $2, $3), ($4, $5, $6)' 1 alice 100 2 bob 50
step "$bin" exec --node "$3" 'UPDATE account SET balance = balance - $1 WHERE id = 1' 30
step "$bin" exec --node "$3" 'UPDATE account SET balance = balance + $1 WHERE id = 2 RETURNING id, owner, balance' 30 | tee "$dir/last-write.out"
echo; echo "# a transaction that violates a constraint fails alone; nothing is applied:"
step "$bin" exec --node "$4" 'UPDATE account SET balance = balance - 1000 WHERE id = 1' || true

# read-your-writes: every node answers once it has the height of our last write
height=$(sed -n 's/^height: *\([0-9][0-9]*\)$/\1/p' "$dir/last-write.out" | head -n 1)
[ -n "$height" ] || { echo "could not read the height of the last write:"; cat "$dir/last-write.out"; exit 1; }
echo; echo "# the same query on every node, at height >= $height (the height of the last write):"
i=0
for r in "$@"; do
  step "$bin" query --node "$r" --min-height "$height" "SELECT id, owner, balance FROM account ORDER BY id" | tee "$dir/out.$i"
  # the rows alone (each node may answer at a later height than the others)
  grep -v -e '\$ ' -e 'rows at height' "$dir/out.$i" >"$dir/answer.$i"
  i=$((i + 1))
done
for f in "$dir"/answer.*; do
  cmp -s "$dir/answer.0" "$f" || { echo "the nodes answered differently: $dir/answer.0 and $f"; exit 1; }
done
grep -q "alice *70" "$dir/answer.0" && grep -q "bob *80" "$dir/answer.0" ||
  { echo "unexpected balances (alice should hold 70 and bob 80):"; cat "$dir/answer.0"; exit 1; }
echo; echo "# every validator, its height and the AppHash it holds:"
step "$bin" status --net "$dir/net"
