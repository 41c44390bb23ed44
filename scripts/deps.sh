#!/usr/bin/env bash
# Sourced by the other scripts: finds or installs what relchain's build and
# tests need (Go, PostgreSQL and MariaDB server binaries) on a Debian machine.

find_go() {
  if ! command -v go >/dev/null 2>&1; then
    if [ -x /usr/local/go/bin/go ]; then
      export PATH="/usr/local/go/bin:$PATH"
    else
      echo "relchain needs Go 1.26 or newer (https://go.dev/dl/); 'go' is not on PATH" >&2
      exit 1
    fi
  fi
}

# ensure_cc makes sure a C compiler is there: relchain links PostgreSQL's
# parser (pg_query_go) and SQLite through cgo, so every build needs one.
# As root (or with sudo) it installs Debian's gcc; otherwise it says what to
# install.
ensure_cc() {
  command -v "${CC:-cc}" >/dev/null 2>&1 && return 0
  command -v gcc >/dev/null 2>&1 && return 0
  local sudo=""
  if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
      echo "relchain's build needs a C compiler (cgo: PostgreSQL's parser and SQLite): install the 'gcc' package" >&2
      exit 1
    fi
  fi
  echo "no C compiler found (cgo needs one): installing Debian's gcc package" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq gcc libc6-dev >/dev/null
  command -v gcc >/dev/null 2>&1 || { echo "installing gcc did not provide gcc" >&2; exit 1; }
}

have_postgres() {
  # the tests run the server (initdb, postgres) and Debian's psql client
  [ -x /usr/bin/psql ] || return 1
  command -v initdb >/dev/null 2>&1 && return 0
  ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1
}

# ensure_postgres installs PostgreSQL's server binaries from Debian's
# packages when they are missing. Tests never use a system server: they
# start private clusters on free ports under temporary directories.
ensure_postgres() {
  have_postgres && return 0
  echo "PostgreSQL server binaries (initdb) not found: installing Debian's postgresql package" >&2
  local sudo=""
  if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
      echo "cannot install PostgreSQL: not root and no sudo; install the 'postgresql' package or set RELCHAIN_TEST_PG" >&2
      exit 1
    fi
  fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq postgresql >/dev/null
  have_postgres || { echo "installing postgresql did not provide initdb" >&2; exit 1; }
}

have_mariadb() {
  command -v mariadbd >/dev/null 2>&1 && return 0
  [ -x /usr/sbin/mariadbd ]
}

# ensure_mariadb installs MariaDB's server binaries (mariadbd,
# mariadb-install-db) from Debian's packages when they are missing. Tests
# never use the system server: they start private servers on free ports
# under temporary directories (backend/mysql/mysqltest).
ensure_mariadb() {
  have_mariadb && return 0
  echo "MariaDB server binaries (mariadbd) not found: installing Debian's mariadb-server package" >&2
  local sudo=""
  if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
      echo "cannot install MariaDB: not root and no sudo; install the 'mariadb-server' package or set RELCHAIN_TEST_MYSQL" >&2
      exit 1
    fi
  fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq mariadb-server >/dev/null
  have_mariadb || { echo "installing mariadb-server did not provide mariadbd" >&2; exit 1; }
}

have_node() {
  command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1
}

# ensure_node installs Node.js and npm from Debian's packages when they are
# missing: the e2e tests of the PostgreSQL listener run node-postgres and
# knex (test/js, installed by the tests themselves with npm ci into the
# user's cache directory).
ensure_node() {
  have_node && return 0
  echo "Node.js or npm not found: installing Debian's nodejs and npm packages" >&2
  local sudo=""
  if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
      echo "cannot install Node.js: not root and no sudo; install the 'nodejs' and 'npm' packages" >&2
      exit 1
    fi
  fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq nodejs npm >/dev/null
  have_node || { echo "installing nodejs and npm did not provide node and npm" >&2; exit 1; }
}

# apt_install PKG...: installs Debian packages (as root, or with sudo).
apt_install() {
  local sudo=""
  if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
      echo "cannot install $*: not root and no sudo; install these Debian packages" >&2
      exit 1
    fi
  fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

have_pyclients() {
  command -v pgcli >/dev/null 2>&1 &&
    /usr/bin/python3 -c 'import psycopg2, psycopg, sqlalchemy, alembic, django' >/dev/null 2>&1
}

# ensure_pyclients installs the Python clients of the compatibility suite
# (test/compat_test.go) from Debian's packages: psycopg2, psycopg 3,
# SQLAlchemy 1.4, Alembic, Django 3.2 and pgcli, run with /usr/bin/python3.
ensure_pyclients() {
  have_pyclients && return 0
  echo "the compatibility suite's Python clients are missing: installing Debian's packages" >&2
  apt_install python3-psycopg2 python3-psycopg python3-sqlalchemy python3-alembic python3-django pgcli
  have_pyclients || { echo "installing the Python clients did not provide them" >&2; exit 1; }
}

have_java() {
  command -v javac >/dev/null 2>&1 && command -v java >/dev/null 2>&1 && [ -f /usr/share/java/postgresql.jar ]
}

# ensure_java installs a JDK and Debian's pgjdbc (/usr/share/java/postgresql.jar):
# the compatibility suite compiles and runs a JDBC client at test time.
ensure_java() {
  have_java && return 0
  echo "javac or pgjdbc missing: installing Debian's openjdk-17-jdk-headless and libpostgresql-jdbc-java" >&2
  apt_install openjdk-17-jdk-headless libpostgresql-jdbc-java
  have_java || { echo "installing the JDK and pgjdbc did not provide javac and postgresql.jar" >&2; exit 1; }
}

# ensure_pgbench installs pgbench (Debian ships it in postgresql-client,
# as psql).
ensure_pgbench() {
  command -v pgbench >/dev/null 2>&1 && command -v psql >/dev/null 2>&1 && return 0
  echo "pgbench or psql missing: installing Debian's postgresql-client" >&2
  apt_install postgresql-client
  command -v pgbench >/dev/null 2>&1 || { echo "installing postgresql-client did not provide pgbench" >&2; exit 1; }
}

# ensure_compat_clients: every client of the compatibility suite
# (test/compat_test.go). Its npm packages (node-postgres, knex, Sequelize)
# are installed by the tests themselves with npm ci (test/js's lock file),
# its Go clients (pgx, GORM) by go run from test/compat/go's go.sum.
ensure_compat_clients() {
  ensure_node
  ensure_pgbench
  ensure_pyclients
  ensure_java
}

# start_bench_postgres DIR: start a private, durable (fsync on) PostgreSQL
# cluster under DIR for benchmarks, stop and remove it when the script
# exits, and set bench_pg_template to a DSN template with {node}.
start_bench_postgres() {
  local pg=$1
  chmod 755 "$pg"
  go build -o "$pg/testdb" ./backend/internal/serverdb/cmd/testdb
  local dsn
  dsn=$("$pg/testdb" -kind postgres -dir "$pg/cluster" -durable)
  bench_cleanup="${bench_cleanup:-}\"$pg/testdb\" -kind postgres -dir \"$pg/cluster\" -stop >/dev/null 2>&1 || true; rm -rf \"$pg\"; "
  trap 'eval "$bench_cleanup"' EXIT
  bench_pg_template=$(echo "$dsn" | sed 's|/postgres?|/relchain_{node}?|')
}

# start_bench_mariadb DIR: start a private, durable (redo log fsynced at
# every commit) MariaDB server under DIR for benchmarks, stop and remove it
# when the script exits (with the PostgreSQL of start_bench_postgres, if
# any), and set bench_mysql_template to a DSN template with {node}.
start_bench_mariadb() {
  local my=$1
  chmod 755 "$my"
  go build -o "$my/testdb" ./backend/internal/serverdb/cmd/testdb
  local dsn
  dsn=$("$my/testdb" -kind mysql -dir "$my/server")
  bench_cleanup="${bench_cleanup:-}\"$my/testdb\" -kind mysql -dir \"$my/server\" -stop >/dev/null 2>&1 || true; rm -rf \"$my\"; "
  trap 'eval "$bench_cleanup"' EXIT
  bench_mysql_template="${dsn%/}/relchain_{node}"
}
