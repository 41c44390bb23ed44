"""pgcli 3.5 (Debian's pgcli) without a terminal: its executor (PGExecute)
runs statements and its special commands as the REPL does, and each of its
completion refreshers (the queries its background thread runs on every
connect) runs as it would. Also `pgcli -l`. argv: URL, table prefix."""
import os
import subprocess
import sys

from pgcli.completion_refresher import CompletionRefresher
from pgcli.pgcompleter import PGCompleter
from pgcli.pgexecute import PGExecute
from pgspecial.main import PGSpecial

from compat import check, dsn_parts, expect, step

url, p = sys.argv[1], sys.argv[2]
host, port, user, password, dbname = dsn_parts(url)
special = PGSpecial()


def connect():
    return PGExecute(dbname, user, password, host, port)


ex = step("connect (PGExecute)", connect)


def run(sql):
    out = []
    for title, rows, headers, status, sql_, success, is_special in ex.run(sql, pgspecial=special):
        expect(success, "%s failed: %s" % (sql_, status))
        out.append((list(rows) if rows is not None else None, status))
    return out


def statements():
    run("CREATE TABLE %s_note (id INTEGER PRIMARY KEY, body TEXT NOT NULL)" % p)
    run("INSERT INTO %s_note (id, body) VALUES (1, 'hello'), (2, 'world')" % p)
    rows = run("SELECT id, body FROM %s_note ORDER BY id" % p)[0][0]
    expect([tuple(r) for r in rows] == [(1, "hello"), (2, "world")], rows)


def specials():
    for cmd in ("\\dt", "\\d %s_note" % p, "\\dn", "\\di"):
        run(cmd)


def transaction():
    run("BEGIN")
    run("UPDATE %s_note SET body = 'bye' WHERE id = 2" % p)
    run("COMMIT")
    rows = run("SELECT body FROM %s_note WHERE id = 2" % p)[0][0]
    expect([tuple(r) for r in rows] == [("bye",)], rows)


if ex is not None:
    step("statements", statements)
    step("special commands (\\dt \\d \\dn \\di)", specials)
    step("a transaction", transaction)
    # The completion refresher's queries, each as its thread runs them.
    completer = PGCompleter(smart_completion=True, pgspecial=special, settings={})
    for name, refresh in CompletionRefresher.refreshers.items():
        step("completion refresher: " + name, refresh, completer, ex)
    check("SELECT id, body FROM %s_note ORDER BY id" % p)


def list_databases():
    env = dict(os.environ, PGPASSWORD=password)
    r = subprocess.run(["pgcli", "-h", host, "-p", str(port), "-U", user, "-l", dbname],
                       capture_output=True, text=True, env=env, timeout=60)
    out = r.stdout + r.stderr
    expect(r.returncode == 0 and dbname in r.stdout and "Traceback" not in out, "pgcli -l: %s" % out.strip()[-300:])


step("pgcli -l (list databases)", list_databases)
