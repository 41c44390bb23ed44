#!/usr/bin/env bash
# relchain's test suite, against real SQLite and a real, private PostgreSQL
# and MariaDB (installed from Debian's packages when missing, started on
# free ports in a temporary directory, stopped at the end).
#
#   scripts/test.sh               make test, the fast loop (under 10 minutes on
#                                 2 cores): go vet, every unit package, and of the
#                                 multi-process networks in ./test only
#                                 $FAST_NETWORK_TESTS (one network per backend,
#                                 the CLI and the default binary's hooks)
#   E2E=1 scripts/test.sh         make test-e2e: the rest of ./test (every other
#                                 network), ./test/e2e (the manifests) and the
#                                 e2e harness's clock fault (-tags e2e_clock);
#                                 ./test's tests that run alone in one job, beside
#                                 the manifests then ./test's healthy networks
#                                 then the unit packages' long tests
#   RELCHAIN_E2E_FULL=1 E2E=1 scripts/test.sh  make test-e2e-full: make
#                                 test-e2e with every backend of the sampled
#                                 scenarios and every engine's fault manifests
#   BENCH=1 scripts/test.sh       make test-bench: ./test's benchmark workloads through
#                                 consensus (-tags benchset), about 10 minutes
#   RACE=1 scripts/test.sh        everything (both of the above) with the race detector
#   UNIT_RACE=1 scripts/test.sh   make race: only the unit packages (all but
#                                 ./test and ./test/e2e), with the race detector,
#                                 built with the test hooks (-tags testhooks)
#   RELCHAIN_UNIT_RACE=1 scripts/test.sh  make test as .ci/run runs it: the
#                                 unit packages once, as make race runs them,
#                                 then without the detector the linearity
#                                 checks, the tests heavy under -race
#                                 (internal/racetest.Heavy) and the default
#                                 build's own tests (no hooks), then the fast
#                                 networks
#   COMPAT=1 scripts/test.sh      only the client compatibility suite (make compat),
#                                 regenerating test/compat/COMPATIBILITY.md
#   RELCHAIN_TEST_PG=DSN ...      use an existing server (superuser DSN) instead
#   RELCHAIN_TEST_MYSQL=DSN ...   use an existing MySQL/MariaDB server (root DSN) instead
#   RELCHAIN_SKIP_PG=1, RELCHAIN_SKIP_MYSQL=1  run without that server
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh
find_go

# The networks of ./test that make test runs (go test -run); make test-e2e
# runs every other one (go test -skip). One network per backend, so that
# the fast loop still starts real validators on each.
FAST_NETWORK_TESTS='^(TestNetworkReplicatesWrites|TestCLIUsability|TestDefaultBinaryHasNoTestHooks)$'

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
# suite (test/compat_test.go) every client in test/compat; the unit
# packages and the fast networks need none of them
if [ "${E2E:-}" = 1 ] || [ "${RACE:-}" = 1 ] || [ "${COMPAT:-}" = 1 ]; then ensure_compat_clients; fi

if [ "${COMPAT:-}" = 1 ]; then
  # make compat: the compatibility suite alone, and its table regenerated
  echo "== the compatibility suite (test/compat_test.go)"
  set +e
  RELCHAIN_COMPAT_TABLE="$PWD/test/compat/COMPATIBILITY.md" RELCHAIN_COMPAT_RESULTS="$PWD/test/compat/results.json" \
    go test -count=1 -timeout 30m -v -run '^TestCompat(SQLite)?$' ./test 2>&1 | tee "$tmp/test.log"
  status=${PIPESTATUS[0]}
  set -e
  echo "regenerated test/compat/COMPATIBILITY.md, results.json and their -sqlite twins (the SQLite network in the postgres dialect)"
  exit "$status"
fi

status=0
steps=() # each go test step's wall time, for the summary
# gotest WHAT ARGS...: go test -count=1 -v ARGS, its output kept for the
# summary; a failure is remembered and the next step still runs.
gotest() {
  echo "== go test: $1"
  local what=$1 start=$SECONDS
  shift
  set +e
  go test -count=1 -v "$@" 2>&1 | tee -a "$tmp/test.log"
  [ "${PIPESTATUS[0]}" = 0 ] || status=1
  set -e
  steps+=("$((SECONDS - start)) s  $what")
}

# gotest_jobs NAME1 CMD1 NAME2 CMD2: the two commands (shell text) side by
# side, each into a log of its own; the logs follow, one after the other,
# when both have ended, and a failure of either is remembered.
gotest_jobs() {
  echo "== two jobs side by side (their logs follow when both end): $1 | $3"
  local start=$SECONDS
  set +e
  (bash -c "$2" > "$tmp/job1.log" 2>&1; rc=$?; echo "$((SECONDS - start))" > "$tmp/job1.secs"; exit $rc) &
  local job1=$!
  bash -c "$4" > "$tmp/job2.log" 2>&1
  local rc2=$?
  steps+=("$((SECONDS - start)) s  $3")
  wait "$job1"
  local rc1=$?
  steps+=("$(cat "$tmp/job1.secs") s  $1")
  set -e
  echo "== go test: $1"
  tee -a "$tmp/test.log" < "$tmp/job1.log"
  echo "== go test: $3"
  tee -a "$tmp/test.log" < "$tmp/job2.log"
  [ "$rc1" = 0 ] && [ "$rc2" = 0 ] || status=1
}

mapfile -t unit < <(go list ./... | grep -v -e '/relchain/test$' -e '/relchain/test/e2e$')
race=()
if [ "${RACE:-}" = 1 ]; then race=(-race); fi
if [ "${UNIT_RACE:-}" = 1 ]; then
  echo "race detector on ${#unit[@]} unit packages (all but ./test and ./test/e2e), with -tags testhooks"
  gotest "the unit packages, -race -tags testhooks" -race -tags testhooks -timeout 40m "${unit[@]}"
elif [ "${BENCH:-}" = 1 ]; then
  # make test-bench: the benchmark workloads loaded through consensus
  # (Smallbank, TPC-C, YCSB on 4-validator networks), checked against the
  # raw baseline; built only with -tags benchset (test/benchset_test.go)
  gotest "./test -tags benchset -run ^TestBench" -tags benchset -timeout 60m -run '^TestBench' ./test
elif [ "${E2E:-}" = 1 ]; then
  # the long tests of unit packages (internal/longtest.Require: the lab's
  # end-to-end checks, the e2e runner's in-process manifest), found by that call
  longrun="true"
  mapfile -t longfiles < <(grep -rl --include='*_test.go' 'longtest.Require(t' . | grep -v '^./internal/longtest/' | sort)
  if [ "${#longfiles[@]}" -gt 0 ]; then
    mapfile -t longpkgs < <(printf '%s\n' "${longfiles[@]}" | xargs -n1 dirname | sort -u)
    longnames=$(awk '/^func Test/ { match($0, /Test[A-Za-z0-9_]+/); name = substr($0, RSTART, RLENGTH) }
      /longtest\.Require\(t/ { print name }' "${longfiles[@]}" | sort -u | paste -sd '|')
    longrun="echo '== the long tests of unit packages ($longnames)'; RELCHAIN_LONG_TESTS=1 go test -count=1 -v -timeout 30m -run '^($longnames)\$' ${longpkgs[*]}"
  fi
  # two jobs side by side, so that two networks run all along: ./test's
  # tests that run alone (killed, paused, restarted validators), and
  # ./test/e2e's manifests followed by ./test's healthy networks one at a
  # time (RELCHAIN_E2E_JOB, test/parallel_test.go) and the long tests of
  # unit packages
  gotest_jobs "./test but $FAST_NETWORK_TESTS: the tests that run alone" \
      "RELCHAIN_E2E_JOB=alone go test -count=1 -v -timeout 60m -skip '$FAST_NETWORK_TESTS' ./test" \
    "./test/e2e, then ./test's healthy networks one at a time, then the long tests of unit packages" \
      "go test -count=1 -v -timeout 60m ./test/e2e; e2e=\$?; RELCHAIN_E2E_JOB=healthy RELCHAIN_E2E_NETWORKS=1 go test -count=1 -v -timeout 60m -skip '$FAST_NETWORK_TESTS' ./test; healthy=\$?; $longrun; long=\$?; [ \$e2e = 0 ] && [ \$healthy = 0 ] && [ \$long = 0 ]"
  # the e2e harness's clock fault (build tag e2e_clock, not in a default build)
  gotest "./internal/clockfault -tags e2e_clock" -tags e2e_clock ./internal/clockfault
else
  # .ci/run vets in make lint first (RELCHAIN_SKIP_VET=1 there)
  if [ "${RELCHAIN_SKIP_VET:-}" != 1 ]; then echo "== go vet"; go vet ./...; fi
  if [ "${RACE:-}" = 1 ]; then
    gotest "${#unit[@]} unit packages (all but ./test and ./test/e2e) ${race[*]}" "${race[@]}" -timeout 40m "${unit[@]}"
    gotest "./test and ./test/e2e -race" -race -timeout 60m ./test ./test/e2e
    gotest "./internal/clockfault -race -tags e2e_clock" -race -tags e2e_clock ./internal/clockfault
  elif [ "${RELCHAIN_UNIT_RACE:-}" = 1 ]; then
    # .ci/run: the unit packages once, under the race detector with the
    # test hooks (make race's run), instead of once without and once with;
    # then what that run cannot cover: the linearity checks (they skip
    # under -race) and the packages whose default build differs from the
    # testhooks one (files tagged !testhooks), without the detector
    gotest "${#unit[@]} unit packages (all but ./test and ./test/e2e), -race -tags testhooks" -race -tags testhooks -timeout 40m "${unit[@]}"
    mapfile -t linear < <(grep -rl --include='*_test.go' -e 'sqlchecktest.Linear(' -e 'func TestGrowth' . | xargs -n1 dirname | sort -u)
    # one package at a time: two packages' large texts measured side by
    # side share the cache and the memory bus, which grows the larger
    # text's time more than the smaller's
    gotest "the linearity checks, without -race, one package at a time" -p 1 -run 'Linear' "${linear[@]}"
    # the packages with tests of the default build itself (test files
    # tagged !testhooks); the rest of the default build differs from the
    # testhooks one only by hooks that do nothing (app's crashAt, node's
    # wrap), vetted by make lint and run by every network of ./test
    mapfile -t nohooks < <(git grep -l '^//go:build.*!testhooks' -- '*_test.go' | xargs -n1 dirname | sort -u | sed 's|^|./|')
    gotest "the default build's own tests (without test hooks)" "${nohooks[@]}"
    # the tests of long single-stream work that skip under -race
    # (internal/racetest.Heavy), found by that call, side by side with the
    # fast networks (those mostly wait for blocks; the heavy tests keep a
    # core busy): one after the other they took 159 s and 82 s
    mapfile -t heavyfiles < <(grep -rl --include='*_test.go' 'racetest\.Heavy(' . | grep -v '^./internal/racetest/' | sort)
    fast="go test -count=1 -v -timeout 20m -run '$FAST_NETWORK_TESTS' ./test"
    if [ "${#heavyfiles[@]}" -gt 0 ]; then
      mapfile -t heavypkgs < <(printf '%s\n' "${heavyfiles[@]}" | xargs -n1 dirname | sort -u)
      heavynames=$(awk '/^func (Test|Fuzz)/ { match($0, /(Test|Fuzz)[A-Za-z0-9_]+/); name = substr($0, RSTART, RLENGTH) }
        /racetest\.Heavy\(/ { print name }' "${heavyfiles[@]}" | sort -u | paste -sd '|')
      gotest_jobs "the tests heavy under -race ($heavynames), without it" \
          "go test -count=1 -v -run '^($heavynames)\$' ${heavypkgs[*]}" \
        "./test -run $FAST_NETWORK_TESTS" "$fast"
    else
      gotest "./test -run $FAST_NETWORK_TESTS" -timeout 20m -run "$FAST_NETWORK_TESTS" ./test
    fi
  else
    gotest "${#unit[@]} unit packages (all but ./test and ./test/e2e)" -timeout 40m "${unit[@]}"
    gotest "./test -run $FAST_NETWORK_TESTS" -timeout 20m -run "$FAST_NETWORK_TESTS" ./test
  fi
fi

echo "== summary"
passed=$(grep -cE '^\s*--- PASS' "$tmp/test.log" || true)
failed=$(grep -cE '^\s*--- FAIL' "$tmp/test.log" || true)
skipped=$(grep -cE '^\s*--- SKIP' "$tmp/test.log" || true)
grep -E '^(ok|FAIL)\s' "$tmp/test.log" || true
# where the time went: the slowest top-level tests (go test -v's
# "--- PASS: TestX (12.34s)"), for keeping the loop and CI short
echo "== wall time of each step"
printf '%s\n' "${steps[@]}"
echo "== the 15 slowest tests"
sed -nE 's/^--- (PASS|FAIL|SKIP): ([^ ]+) \(([0-9.]+)s\)$/\3 \2 \1/p' "$tmp/test.log" | sort -rn | head -15 || true
if [ "$failed" != 0 ]; then
  # go test -v streams a test's log before its --- FAIL line: each failure
  # again with what led to it, so the end of a long CI log names the cause
  echo "== failures (each with the 25 lines before it)"
  grep -B 25 -E '^\s*--- FAIL' "$tmp/test.log" | head -400
fi
echo "tests: $passed passed, $failed failed, $skipped skipped"
exit "$status"
