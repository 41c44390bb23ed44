#!/usr/bin/env bash
# Recaptures the catalog-query corpus of backend/pgcatalog
# (backend/pgcatalog/testdata/clients/*.sql; format and schema in its
# README.md): starts a private PostgreSQL cluster, creates the corpus schema
# (schema.sql) in a database "shop", logs every statement with the session's
# application_name, runs each client's schema-reading operations
# (testdata/capture/: psql below, capture.py, capture.js, Capture.java,
# go/), then files the catalog SELECTs of the log per client
# (capture/extract.py).
#
# Usage: scripts/capture-catalog-queries.sh [client ...]
#   clients: psql pgcli sqlalchemy alembic django jdbc pg knex sequelize gorm
#   (default: all). Only the named clients' files are rewritten.
# Needs: scripts/deps.sh ensure_compat_clients (psql 15, Debian's Python
# clients, a JDK and pgjdbc, Node.js), Go, and the npm registry once (test/js's
# locked packages, installed into RELCHAIN_JS_CACHE or ~/.cache/relchain-js).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh
find_go
ensure_postgres
ensure_compat_clients

clients=("$@")
[ ${#clients[@]} -gt 0 ] || clients=(psql pgcli sqlalchemy alembic django jdbc pg knex sequelize gorm)
cap=backend/pgcatalog/testdata/capture
out=backend/pgcatalog/testdata/clients

work=$(mktemp -d /tmp/relchain-capture.XXXXXX)
chmod 755 "$work"
go build -o "$work/testdb" ./backend/internal/serverdb/cmd/testdb
dsn=$("$work/testdb" -kind postgres -dir "$work/pg")
trap '"$work/testdb" -kind postgres -dir "$work/pg" -stop >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
port=$(echo "$dsn" | sed 's|.*:\([0-9]*\)/.*|\1|')
url="postgres://postgres@127.0.0.1:$port/shop"

psql -X -q "$dsn" -c "CREATE DATABASE shop"
psql -X -q -v ON_ERROR_STOP=1 "$url" -f "$out/schema.sql"
psql -X -q "$dsn" -c "ALTER SYSTEM SET log_statement = 'all'" \
  -c "ALTER SYSTEM SET log_line_prefix = '@@%p@@%a@@ '" -c "SELECT pg_reload_conf()" >/dev/null
export TZ=UTC PGTZ=UTC

# js_modules: test/js's locked packages (the same cache as test/compat_test.go).
js_modules() {
  local root="${RELCHAIN_JS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/relchain-js}"
  local key
  key=$( (cat test/js/package.json; printf '\0'; cat test/js/package-lock.json) | sha256sum | cut -c1-16)
  if [ ! -f "$root/$key/installed" ]; then
    mkdir -p "$root/$key"
    cp test/js/package.json test/js/package-lock.json "$root/$key/"
    (cd "$root/$key" && npm ci --no-audit --no-fund --loglevel=error >/dev/null && touch installed)
  fi
  echo "$root/$key/node_modules"
}

capture_psql() {
  local cmd
  for cmd in '\d' '\dt' '\d authors' '\d books' '\d+ authors' '\d+ books' '\d books_in_print' \
    '\di' '\dv' '\ds' '\dn' '\l' '\du' '\df' '\dT' '\x' \
    '\d invoice_seq' '\d+ books_in_print' '\dt+'; do
    PGAPPNAME="cap:psql:$cmd" psql -X -q "$url" -c "$cmd" >/dev/null
  done
}

for c in "${clients[@]}"; do
  echo "capturing $c" >&2
  case $c in
  psql) capture_psql ;;
  pgcli | sqlalchemy | alembic | django)
    # a fixed hash seed: Alembic compares tables in set order
    PYTHONHASHSEED=0 PYTHONDONTWRITEBYTECODE=1 /usr/bin/python3 "$cap/capture.py" "$c" 127.0.0.1 "$port" postgres shop "$work/$c" ;;
  jdbc)
    mkdir -p "$work/java"
    javac -d "$work/java" -cp /usr/share/java/postgresql.jar "$cap/Capture.java"
    java -cp "$work/java:/usr/share/java/postgresql.jar" Capture 127.0.0.1 "$port" postgres shop ;;
  pg | knex | sequelize) NODE_PATH=$(js_modules) node "$cap/capture.js" "$c" "$url" ;;
  gorm) (cd "$cap/go" && go run . "$url") ;;
  *) echo "unknown client $c" >&2; exit 2 ;;
  esac
done
psql -X -q "$dsn" -c "ALTER SYSTEM RESET log_statement" -c "SELECT pg_reload_conf()" >/dev/null
# The schema's objects by oid: extract.py writes an oid the clients sent
# back (psql's \d sends the table's) as {{class authors}} and the like.
psql -X -A -t -F "$(printf '\t')" "$url" -c "
  SELECT oid, 'class', relname FROM pg_class WHERE oid >= 16384
  UNION ALL SELECT oid, 'type', typname FROM pg_type WHERE oid >= 16384
  UNION ALL SELECT oid, 'constraint', conname FROM pg_constraint WHERE oid >= 16384" >"$work/oids.tsv"
mkdir -p "$work/out"
/usr/bin/python3 "$cap/extract.py" "$work/pg/postgres.log" "$work/oids.tsv" "$work/out"
for c in "${clients[@]}"; do
  if [ -f "$work/out/$c.sql" ]; then cp "$work/out/$c.sql" "$out/$c.sql"; else
    echo "$c sent no catalog query" >&2
    rm -f "$out/$c.sql"
  fi
done
