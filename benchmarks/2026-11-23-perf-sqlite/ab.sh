#!/bin/bash
# A/B of the branch point (696a226) against perf-sqlite, alternating.
out=/tmp/sq/ab-$(date +%H%M%S)
mkdir -p $out
for r in $(seq 1 ${ROUNDS:-3}); do
  for v in base new; do
    for mode in ${MODES:-pseudo async}; do
      if [ $mode = pseudo ]; then args="--workload smallbank --mode pseudo --wl-per-bc 100 --clients 8 --txs 50000 --baseline"
      else args="--workload smallbank --mode async --txs 10000 --ceiling --baseline"; fi
      echo "== round $r $v $mode" >> $out/log.txt
      flock /tmp/relchain-bench.lock /tmp/sq/relchain-$v bench --quiet $args >> $out/log.txt 2>&1
    done
  done
done
echo ALLDONE >> $out/log.txt
