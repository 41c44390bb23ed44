"""psycopg2 (Debian's python3-psycopg2) as applications use it: a
connection with its implicit transactions, parameters, types, a 40001
conflict retried. argv: URL, table prefix."""
import datetime
import decimal
import sys

import psycopg2
import psycopg2.extras

from compat import check, conflict, expect, step

url, p = sys.argv[1], sys.argv[2]


def connect():
    return psycopg2.connect(url)


conn = step("connect", connect)


def ddl():
    cur = conn.cursor()
    cur.execute("CREATE TABLE %s_item (id INTEGER PRIMARY KEY, name TEXT NOT NULL, price NUMERIC(8,2), "
                "at TIMESTAMPTZ, tags TEXT[])" % p)
    conn.commit()


def insert():
    cur = conn.cursor()
    at = datetime.datetime(2026, 12, 1, 23, 9, 33, 293245, tzinfo=datetime.timezone.utc)
    cur.execute("INSERT INTO %s_item (id, name, price, at, tags) VALUES (%%s, %%s, %%s, %%s, %%s)" % p,
                (1, "pen", decimal.Decimal("1.50"), at, ["a", "b"]))
    cur.executemany("INSERT INTO %s_item (id, name) VALUES (%%s, %%s)" % p, [(2, "ink"), (3, "pad")])
    conn.commit()


def read_types():
    cur = conn.cursor()
    cur.execute("SELECT name, price, at, tags FROM %s_item WHERE id = 1" % p)
    row = cur.fetchone()
    conn.commit()
    want = ("pen", decimal.Decimal("1.50"),
            datetime.datetime(2026, 12, 1, 23, 9, 33, 293245, tzinfo=datetime.timezone.utc), ["a", "b"])
    expect(row == want, "read back %r, want %r" % (row, want))


def dict_cursor():
    cur = conn.cursor(cursor_factory=psycopg2.extras.RealDictCursor)
    cur.execute("SELECT id, name FROM %s_item ORDER BY id" % p)
    rows = [dict(r) for r in cur.fetchall()]
    conn.commit()
    expect(rows == [{"id": 1, "name": "pen"}, {"id": 2, "name": "ink"}, {"id": 3, "name": "pad"}], rows)


def rollback():
    cur = conn.cursor()
    cur.execute("DELETE FROM %s_item WHERE id = 3" % p)
    conn.rollback()
    cur.execute("SELECT count(*) FROM %s_item" % p)
    n = cur.fetchone()[0]
    conn.commit()
    expect(n == 3, "%d rows after a rolled-back DELETE, want 3" % n)


def error_then_go_on():
    cur = conn.cursor()
    try:
        cur.execute("INSERT INTO %s_item (id, name) VALUES (1, 'dup')" % p)
        raise AssertionError("a duplicate key was accepted")
    except psycopg2.errors.UniqueViolation:
        conn.rollback()
    cur.execute("SELECT 2")
    expect(cur.fetchone()[0] == 2, "no answer after an error")
    conn.commit()


if conn is not None:
    step("create table (numeric, timestamptz, text[])", ddl)
    step("insert with parameters, executemany", insert)
    step("read numeric, timestamptz, text[] back", read_types)
    step("RealDictCursor", dict_cursor)
    step("rollback", rollback)
    step("an error (23505), then the connection goes on", error_then_go_on)
    check("SELECT id, name, price FROM %s_item ORDER BY id" % p)
step("40001 conflict, retried", conflict, connect, p + "_counter")
