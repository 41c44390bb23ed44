#!/usr/bin/env bash
# Compares Go SQLite drivers on relchain's block write path (see README.md).
# A separate module so the main module does not depend on the losing drivers.
set -euo pipefail
cd "$(dirname "$0")"
mkdir -p results bin
for p in mattn modernc ncruces; do
  go test -c -o "bin/$p.test" "./$p"
  "./bin/$p.test" -test.run '^$' -test.bench . -test.count 5 -test.benchmem > "results/$p.txt" 2>&1
done
(cd results && go run golang.org/x/perf/cmd/benchstat@v0.0.0-20260813145340-fd4a688df892 -table .name -col .file mattn.txt modernc.txt ncruces.txt)
