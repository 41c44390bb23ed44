#!/usr/bin/env bash
# A/B: Smallbank sync on PostgreSQL (4 validators), session-start build (696a226) vs merged build, alternately.
set -euo pipefail
cd /work/main
. scripts/deps.sh; find_go
start_bench_postgres "$(mktemp -d /tmp/relchain-benchpg.XXXXXX)"
out=${OUT:-/tmp/ab-sync}; mkdir -p $out
for i in 1 2; do
  for v in base new; do
    /tmp/relchain-$v bench --quiet --workload smallbank --mode sync --txs 400 --baseline --ceiling --backend postgres --dsn-template "$bench_pg_template" --output $out/$v-$i.json > $out/$v-$i.txt 2>&1 || echo "run $v $i failed"
    python3 -c "import json;d=json.load(open('$out/$v-$i.json'));print('$v',$i,'p50',d['latency_ms']['p50'],'kv p50',d['ceiling']['latency_ms']['p50'],'blocks',d['blocks'],'phases',{k:round(v,1) for k,v in d['phases_ms'].items()})"
  done
done
