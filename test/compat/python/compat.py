"""Shared by the compatibility suite's Python clients (test/compat_test.go).

A client script runs its steps with step(); each step prints one JSON
line, {"step": name, "ok": bool, "error": text}, and a failed step does not
stop the script: the steps after it run (and report) as the client's user
would see them. check(sql) names a query whose rows every validator must
agree on once the script is done.
"""
import json
import sys
import traceback
import urllib.parse


def _emit(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def _describe(e):
    code = sqlstate(e)
    text = str(e).strip().splitlines()
    first = " ".join(line.strip() for line in text[:3]) if text else ""
    msg = "%s: %s" % (type(e).__name__, first)
    if code and code not in msg:
        msg = "%s (SQLSTATE %s)" % (msg, code)
    return msg[:400]


def _where(e):
    """The innermost frames of e's traceback, "file:line in function" each,
    for the suite's recap: a CI excerpt may show only that."""
    frames = traceback.extract_tb(e.__traceback__)[-6:]
    return " <- ".join("%s:%d in %s" % ("/".join(f.filename.split("/")[-2:]), f.lineno, f.name)
                       for f in reversed(frames))


_context = []


def set_context(fn):
    """fn() describes the client's state (its driver's transaction state,
    its last statements) for the recap of a failed step."""
    _context[:] = [fn]


def _state():
    try:
        return " | ".join(fn() for fn in _context)
    except Exception as e:  # the description must not hide the failure
        return "(no context: %s)" % _describe(e)


def step(name, fn, *args):
    """Runs fn(*args) as the step name; returns its result, or None if it failed."""
    try:
        out = fn(*args)
    except Exception as e:  # every failure is the step's result
        _emit({"step": name, "ok": False, "error": _describe(e), "trace": _where(e), "context": _state()})
        traceback.print_exc(file=sys.stderr)
        return None
    _emit({"step": name, "ok": True})
    return out


def check(sql):
    _emit({"check": sql})


def expect(cond, what):
    if not cond:
        raise AssertionError(what)


def sqlstate(e):
    """The SQLSTATE of a psycopg2, psycopg 3, SQLAlchemy or Django error."""
    seen = set()
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        for attr in ("pgcode", "sqlstate"):
            code = getattr(e, attr, None)
            if isinstance(code, str) and code:
                return code
        e = getattr(e, "orig", None) or e.__cause__ or e.__context__
    return None


def dsn_parts(url):
    """host, port, user, password, dbname of a postgres:// URL."""
    u = urllib.parse.urlparse(url)
    return u.hostname, u.port, urllib.parse.unquote(u.username), urllib.parse.unquote(u.password), u.path.lstrip("/")


def conflict(connect, table):
    """Two DB-API connections run the same read-modify-write transaction on
    table (id 1, counter n), interleaved: both read n, both write n+1, both
    commit. One gets 40001; it retries alone and commits. Returns the final
    n (2 above the start) and the SQLSTATEs seen."""
    a, b = connect(), connect()
    cur = a.cursor()
    cur.execute("CREATE TABLE %s (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)" % table)
    cur.execute("INSERT INTO %s (id, n) VALUES (1, 0)" % table)
    a.commit()
    codes = []
    pending = []
    read = {}
    conns = {"a": a, "b": b}
    for k, c in conns.items():
        cur = c.cursor()
        cur.execute("SELECT n FROM %s WHERE id = 1" % table)
        read[k] = cur.fetchone()[0]
    for k, c in conns.items():
        try:
            c.cursor().execute("UPDATE " + table + " SET n = %s WHERE id = 1", (read[k] + 1,))
            c.commit()
        except Exception as e:
            codes.append(sqlstate(e))
            c.rollback()
            pending.append(c)
    for c in pending:
        for _ in range(5):
            try:
                cur = c.cursor()
                cur.execute("SELECT n FROM %s WHERE id = 1" % table)
                n = cur.fetchone()[0]
                cur.execute("UPDATE " + table + " SET n = %s WHERE id = 1", (n + 1,))
                c.commit()
                break
            except Exception as e:
                codes.append(sqlstate(e))
                c.rollback()
    cur = a.cursor()
    cur.execute("SELECT n FROM %s WHERE id = 1" % table)
    final = cur.fetchone()[0]
    a.commit()
    a.close()
    b.close()
    expect(codes and codes[0] == "40001", "the interleaved transactions raised %s, want one 40001" % codes)
    expect(final == 2, "after the retry n = %s, want 2 (SQLSTATEs %s)" % (final, codes))
    check("SELECT id, n FROM %s ORDER BY id" % table)
    return final
