#!/usr/bin/env bash
# Builtin vs server variant (issue 6, the paper's Fig. 3): Smallbank on SQLite, 4 validators,
# alternating the two transports in one script so both see the same machine load.
#   flock /tmp/relchain-bench.lock benchmarks/2026-11-24-abci/ab-abci.sh OUT_DIR
set -euo pipefail
bin=${BIN:-bin/relchain}
out=${1:?output directory}
mkdir -p "$out"
for round in 1 2 3; do
  for abci in builtin socket; do
    "$bin" bench --workload smallbank --mode async --txs 3000 --validators 4 --abci "$abci" --quiet \
      --output "$out/async-$abci-$round.json" > "$out/async-$abci-$round.txt" 2>&1
  done
done
for round in 1 2; do
  for abci in builtin socket; do
    "$bin" bench --workload smallbank --mode sync --txs 200 --validators 4 --abci "$abci" --quiet \
      --output "$out/sync-$abci-$round.json" > "$out/sync-$abci-$round.txt" 2>&1
  done
done
