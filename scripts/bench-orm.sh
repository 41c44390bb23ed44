#!/usr/bin/env bash
# Issue 33's ORM measurement: Django 3.2 and SQLAlchemy 1.4 CRUD loops
# (create, get by key, update; N each) through the in-node listener of a
# 4-validator PostgreSQL network (relchain localnet), beside the same ORM on
# the raw PostgreSQL that holds the validators' databases. ROUNDS rounds
# alternate raw and chain; prints every phase's ops/s and latency, then
# the medians and the chain/raw ratio. The PostgreSQL cluster is private
# and durable (fsync on), as in scripts/bench.sh.
#
#   scripts/bench-orm.sh [OUT_DIR]    N=300 CLIENTS=8 ROUNDS=3 by default
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh
find_go
ensure_postgres
ensure_pyclients
n=${N:-300} clients=${CLIENTS:-8} rounds=${ROUNDS:-3}
out=${1:-bench-results/orm-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out"
tmp=$(mktemp -d /tmp/relchain-orm.XXXXXX)
chmod 755 "$tmp"
mkdir "$tmp/pg"
start_bench_postgres "$tmp/pg"
go build -o "$tmp/relchain" ./cmd/relchain
# Stop the network before its PostgreSQL, and remove everything after.
bench_cleanup="[ -n \"\${net_pid:-}\" ] && { kill \$net_pid; wait \$net_pid; } 2>/dev/null || true; ${bench_cleanup}rm -rf \"$tmp\"; "

# The raw baseline: a database of its own on the same server.
server=${bench_pg_template/relchain_\{node\}/postgres}
psql -q "$server" -c "CREATE DATABASE orm_raw" >/dev/null
raw=${bench_pg_template/relchain_\{node\}/orm_raw}

# The network: 4 validators, listeners on 127.0.0.1:PG_PORT+i.
base=${BASE_PORT:-36656} pgport=${PG_PORT:-36433}
"$tmp/relchain" localnet --home "$tmp/net" --backend postgres --dsn-template "$bench_pg_template" \
  --base-port "$base" --pg-port "$pgport" >"$out/localnet.log" 2>&1 &
net_pid=$!
chain="postgres://relchain:relchain@127.0.0.1:$((pgport + 1))/relchain?sslmode=disable"
for _ in $(seq 1 120); do
  psql -q "$chain" -c "SELECT 1" >/dev/null 2>&1 && break
  kill -0 "$net_pid" 2>/dev/null || { echo "localnet exited:"; tail -20 "$out/localnet.log"; exit 1; }
  sleep 1
done
echo "network up; node 1's listener: $chain" | tee "$out/summary.txt"
echo "N=$n CLIENTS=$clients ROUNDS=$rounds" | tee -a "$out/summary.txt"

for orm in django sqlalchemy; do
  for r in $(seq 1 "$rounds"); do
    for target in raw chain; do
      url=$raw
      [ "$target" = chain ] && url=$chain
      scratch=$(mktemp -d "$tmp/scratch.XXXXXX")
      echo "== $orm round $r on $target: scripts/bench-orm.py $orm URL $n $clients DIR" | tee -a "$out/summary.txt"
      /usr/bin/python3 scripts/bench-orm.py "$orm" "$url" "$n" "$clients" "$scratch" 2>>"$out/stderr.log" |
        sed "s/^{/{\"target\": \"$target\", \"round\": $r, /" | tee -a "$out/results.jsonl" | tee -a "$out/summary.txt" ||
        echo "$orm on $target failed: see $out/stderr.log" | tee -a "$out/summary.txt"
    done
  done
done

/usr/bin/python3 - "$out/results.jsonl" <<'PY' | tee -a "$out/summary.txt"
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
print("median of the rounds: ORM, phase, raw PostgreSQL ops/s (p50 ms), relchain listener ops/s (p50 ms), ratio")
for orm in ("django", "sqlalchemy"):
    for phase in ("create", "get", "update"):
        m = {}
        for target in ("raw", "chain"):
            rs = [r for r in rows if r["orm"] == orm and r["phase"] == phase and r["target"] == target and not r.get("errors")]
            m[target] = (statistics.median([r["ops_per_s"] for r in rs]), statistics.median([r["p50_ms"] for r in rs])) if rs else None
        if m["raw"] and m["chain"]:
            print("%-10s %-6s %8.1f (%6.1f ms)  %8.1f (%6.1f ms)  %.3f" % (orm, phase, m["raw"][0], m["raw"][1], m["chain"][0], m["chain"][1], m["chain"][0] / m["raw"][0]))
        else:
            print("%-10s %-6s raw %s chain %s (a target had no run without errors: see results.jsonl)" % (orm, phase, m["raw"], m["chain"]))
PY
echo "results in $out"
