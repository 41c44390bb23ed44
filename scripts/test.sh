#!/usr/bin/env bash
# relchain's test suite: every package against real SQLite and a real,
# private PostgreSQL and MariaDB (installed from Debian's packages when
# missing, started on free ports in a temporary directory, stopped at the
# end), plus real multi-validator CometBFT networks on loopback.
#
#   RACE=1 scripts/test.sh        run with the race detector
#   UNIT_RACE=1 scripts/test.sh   only the unit packages (all but the e2e
#                                 networks in ./test and ./test/e2e), with the race detector,
#                                 built with the test hooks (-tags testhooks)
#   COMPAT=1 scripts/test.sh      only the client compatibility suite (make compat),
#                                 regenerating test/compat/COMPATIBILITY.md
#   RELCHAIN_TEST_PG=DSN ...      use an existing server (superuser DSN) instead
#   RELCHAIN_TEST_MYSQL=DSN ...   use an existing MySQL/MariaDB server (root DSN) instead
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh
find_go

tmp=$(mktemp -d /tmp/relchain-test.XXXXXX)
chmod 755 "$tmp"
cleanup() {
  if [ -x "$tmp/testdb" ] && [ -d "$tmp/pg" ]; then "$tmp/testdb" -kind postgres -dir "$tmp/pg" -stop || true; fi
  if [ -x "$tmp/testdb" ] && [ -d "$tmp/mysql" ]; then "$tmp/testdb" -kind mysql -dir "$tmp/mysql" -stop || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT

if [ -z "${RELCHAIN_TEST_PG:-}" ] && [ "${RELCHAIN_SKIP_PG:-}" != 1 ]; then
  ensure_postgres
  go build -o "$tmp/testdb" ./backend/internal/serverdb/cmd/testdb
  RELCHAIN_TEST_PG=$("$tmp/testdb" -kind postgres -dir "$tmp/pg")
  export RELCHAIN_TEST_PG
  echo "private PostgreSQL for this run: $RELCHAIN_TEST_PG"
fi

if [ -z "${RELCHAIN_TEST_MYSQL:-}" ] && [ "${RELCHAIN_SKIP_MYSQL:-}" != 1 ]; then
  ensure_mariadb
  [ -x "$tmp/testdb" ] || go build -o "$tmp/testdb" ./backend/internal/serverdb/cmd/testdb
  RELCHAIN_TEST_MYSQL=$("$tmp/testdb" -kind mysql -dir "$tmp/mysql")
  export RELCHAIN_TEST_MYSQL
  echo "private MariaDB for this run: $RELCHAIN_TEST_MYSQL"
fi

# the e2e tests run node-postgres and knex (test/js), and the compatibility
# suite (test/compat_test.go) every client in test/compat
[ "${UNIT_RACE:-}" = 1 ] || ensure_compat_clients

if [ "${COMPAT:-}" = 1 ]; then
  # make compat: the compatibility suite alone, and its table regenerated
  echo "== the compatibility suite (test/compat_test.go)"
  set +e
  RELCHAIN_COMPAT_TABLE="$PWD/test/compat/COMPATIBILITY.md" RELCHAIN_COMPAT_RESULTS="$PWD/test/compat/results.json" \
    go test -count=1 -timeout 20m -v -run '^TestCompat$' ./test 2>&1 | tee "$tmp/test.log"
  status=${PIPESTATUS[0]}
  set -e
  echo "regenerated test/compat/COMPATIBILITY.md and test/compat/results.json"
  exit "$status"
fi

echo "== go vet"
go vet ./...
echo "== go test"
race=()
pkgs=(./...)
if [ "${RACE:-}" = 1 ]; then race=(-race); fi
if [ "${UNIT_RACE:-}" = 1 ]; then
  race=(-race -tags testhooks)
  mapfile -t pkgs < <(go list ./... | grep -v -e '/relchain/test$' -e '/relchain/test/e2e$')
  echo "race detector on ${#pkgs[@]} unit packages (all but ./test and ./test/e2e), with -tags testhooks"
fi
set +e
go test "${race[@]}" -count=1 -timeout 40m -v "${pkgs[@]}" 2>&1 | tee "$tmp/test.log"
status=${PIPESTATUS[0]}
# the e2e harness's clock fault (build tag e2e_clock, not in a default build)
go test -tags e2e_clock -count=1 -v ./internal/clockfault 2>&1 | tee -a "$tmp/test.log"
[ "${PIPESTATUS[0]}" = 0 ] || status=1
set -e
echo "== summary"
passed=$(grep -cE '^\s*--- PASS' "$tmp/test.log" || true)
failed=$(grep -cE '^\s*--- FAIL' "$tmp/test.log" || true)
skipped=$(grep -cE '^\s*--- SKIP' "$tmp/test.log" || true)
grep -E '^(ok|FAIL)\s' "$tmp/test.log" || true
echo "tests: $passed passed, $failed failed, $skipped skipped"
exit "$status"
