"""psycopg 3 (Debian's python3-psycopg) as applications use it: server-side
parameters, the transaction() context, a pipeline-free connection, a 40001
conflict retried. argv: URL, table prefix."""
import datetime
import decimal
import sys

import psycopg

from compat import check, conflict, expect, step

url, p = sys.argv[1], sys.argv[2]


def connect():
    return psycopg.connect(url)


conn = step("connect", connect)


def ddl():
    conn.execute("CREATE TABLE %s_item (id INTEGER PRIMARY KEY, name TEXT NOT NULL, price NUMERIC(8,2), "
                 "at TIMESTAMPTZ, tags TEXT[])" % p)
    conn.commit()


def insert():
    at = datetime.datetime(2026, 12, 1, 23, 9, 33, 293245, tzinfo=datetime.timezone.utc)
    conn.execute("INSERT INTO %s_item (id, name, price, at, tags) VALUES (%%s, %%s, %%s, %%s, %%s)" % p,
                 (1, "pen", decimal.Decimal("1.50"), at, ["a", "b"]))
    with conn.cursor() as cur:
        cur.executemany("INSERT INTO %s_item (id, name) VALUES (%%s, %%s)" % p, [(2, "ink"), (3, "pad")])
    conn.commit()


def read_types():
    row = conn.execute("SELECT name, price, at, tags FROM %s_item WHERE id = %%s" % p, (1,)).fetchone()
    conn.commit()
    want = ("pen", decimal.Decimal("1.50"),
            datetime.datetime(2026, 12, 1, 23, 9, 33, 293245, tzinfo=datetime.timezone.utc), ["a", "b"])
    expect(row == want, "read back %r, want %r" % (row, want))


def binary():
    with conn.cursor(binary=True) as cur:
        cur.execute("SELECT id, name, price FROM %s_item WHERE id = %%s" % p, (1,))
        row = cur.fetchone()
    conn.commit()
    expect(row == (1, "pen", decimal.Decimal("1.50")), "binary results %r" % (row,))


def transaction_block():
    with psycopg.connect(url, autocommit=True) as auto:
        with auto.transaction():
            auto.execute("UPDATE %s_item SET name = 'pen2' WHERE id = 1" % p)
        try:
            with auto.transaction():
                auto.execute("DELETE FROM %s_item WHERE id = 3" % p)
                raise RuntimeError("roll back")
        except RuntimeError:
            pass
        n = auto.execute("SELECT count(*) FROM %s_item" % p).fetchone()[0]
        name = auto.execute("SELECT name FROM %s_item WHERE id = 1" % p).fetchone()[0]
    expect((n, name) == (3, "pen2"), "after a committed and a rolled-back transaction(): %r" % ((n, name),))


def nested():
    with psycopg.connect(url, autocommit=True) as auto:
        with auto.transaction():
            auto.execute("UPDATE %s_item SET name = 'ink2' WHERE id = 2" % p)
            try:
                with auto.transaction():  # a savepoint
                    auto.execute("UPDATE %s_item SET name = 'gone' WHERE id = 2" % p)
                    raise RuntimeError("roll back to the savepoint")
            except RuntimeError:
                pass
        name = auto.execute("SELECT name FROM %s_item WHERE id = 2" % p).fetchone()[0]
    expect(name == "ink2", "after a rolled-back savepoint: %r, want ink2" % name)


if conn is not None:
    step("create table (numeric, timestamptz, text[])", ddl)
    step("insert with parameters, executemany", insert)
    step("read numeric, timestamptz, text[] back", read_types)
    step("binary results", binary)
    step("transaction() blocks", transaction_block)
    step("nested transaction() (savepoint)", nested)
    check("SELECT id, name, price FROM %s_item ORDER BY id" % p)
step("40001 conflict, retried", conflict, connect, p + "_counter")
