#!/usr/bin/env bash
# Runs every fuzz target for FUZZTIME each (default 5m). The seed corpora
# (every gate corpus statement, valid and broken envelopes) already run as
# ordinary tests in `make test`; this looks for new crashers. A crasher is
# saved under the package's testdata/fuzz/ and then runs in every `make test`.
#
#   FUZZTIME=10m scripts/fuzz.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh
find_go
t=${FUZZTIME:-5m}
for target in \
  "./txn FuzzDecode" \
  "./txn FuzzDecodeRehearsal" \
  "./backend/postgres/pggate FuzzCheck" \
  "./backend/postgres/pggate FuzzRewrite" \
  "./backend/postgres/pggate FuzzPrescanReadsAsPostgreSQL" \
  "./backend/mysql/mysqlgate FuzzCheck" \
  "./backend/mysql/mysqlgate FuzzPrescanReadsAsMySQL" \
  "./backend/sqlite FuzzGate" \
  "./sqlcheck/prescan FuzzMeasure" \
  "./gateway FuzzSplit" \
  "./gateway FuzzCopyDecoders" \
  "./statedigest FuzzAsmMatchesReference" \
  "./pgwire FuzzClientMessages" \
  "./pgwire FuzzStartup"; do
  set -- $target
  # Not piped into grep -q: grep exiting first would fail the pipeline.
  listed=$(go test -list "^$2\$" "$1")
  if ! grep -qx "$2" <<<"$listed"; then
    echo "== $1 $2: no such fuzz target, skipped"; continue
  fi
  echo "== $1 $2 for $t"
  go test -run '^$' -fuzz "^$2\$" -fuzztime "$t" "$1"
done
