#!/usr/bin/env bash
# The long fault campaign (make e2e-long): every manifest of
# test/e2e/manifests/long, ten minutes each under random fault schedules,
# against a private PostgreSQL and MariaDB (as scripts/test.sh starts
# them). The seed is printed; RELCHAIN_E2E_SEED=<seed> replays a run.
# Reports (report.json, history.jsonl per manifest) go to
# RELCHAIN_E2E_REPORTS (default e2e-reports/<UTC time>).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh
find_go

tmp=$(mktemp -d /tmp/relchain-e2e-long.XXXXXX)
chmod 755 "$tmp"
cleanup() {
  if [ -x "$tmp/testdb" ] && [ -d "$tmp/pg" ]; then "$tmp/testdb" -kind postgres -dir "$tmp/pg" -stop || true; fi
  if [ -x "$tmp/testdb" ] && [ -d "$tmp/mysql" ]; then "$tmp/testdb" -kind mysql -dir "$tmp/mysql" -stop || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT

go build -o "$tmp/testdb" ./backend/internal/serverdb/cmd/testdb
if [ -z "${RELCHAIN_TEST_PG:-}" ]; then
  ensure_postgres
  RELCHAIN_TEST_PG=$("$tmp/testdb" -kind postgres -dir "$tmp/pg")
  export RELCHAIN_TEST_PG
fi
if [ -z "${RELCHAIN_TEST_MYSQL:-}" ]; then
  ensure_mariadb
  RELCHAIN_TEST_MYSQL=$("$tmp/testdb" -kind mysql -dir "$tmp/mysql")
  export RELCHAIN_TEST_MYSQL
fi

export RELCHAIN_E2E_LONG=1
export RELCHAIN_E2E_REPORTS=${RELCHAIN_E2E_REPORTS:-$PWD/e2e-reports/$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$RELCHAIN_E2E_REPORTS"
echo "reports: $RELCHAIN_E2E_REPORTS"
go test -count=1 -timeout 90m -v -run 'TestLongManifests' ./test/e2e 2>&1 | tee "$RELCHAIN_E2E_REPORTS/test.log"
