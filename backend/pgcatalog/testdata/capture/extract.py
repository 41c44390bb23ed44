"""Files the catalog queries of a PostgreSQL server log into the corpus
(../clients/<client>.sql, format in ../clients/README.md).

The server logs with log_statement = 'all' and log_line_prefix
'@@%p@@%a@@ ' (process id, application_name); the capture drivers name
each operation in application_name as "cap:<client>:<operation>". A
statement is kept when it is one SELECT (or WITH … SELECT) that reads the
catalog: pg_catalog, information_schema, a pg_* relation or function, or a
catalog function (current_schema(), version(), current_setting(), …).
Exact repeats within a client (same text, same parameters) are kept once,
under the first operation that sent them. An oid of the schema's objects in
a statement or its parameters (a client sending back an oid it read) is
written as {{class authors}}, {{type authors}} or {{constraint books_pkey}}:
the differential test puts in the oid each database gives the object.

argv: server log, the schema's objects (oid, kind, name; tab-separated),
output directory."""
import collections
import os
import re
import sys

PREFIX = re.compile(r"^@@(\d+)@@(.*?)@@ (LOG|DETAIL|ERROR|STATEMENT|HINT|FATAL|WARNING|NOTICE|CONTEXT):  (.*)$")
STMT = re.compile(r"^(?:statement|execute [^:]*): (.*)$", re.S)
CATALOG = re.compile(r"pg_catalog|information_schema|\bpg_\w+|current_schema|\bversion\s*\(|current_setting"
                     r"|current_database|current_user|session_user|::\s*reg\w+|format_type|col_description"
                     r"|obj_description|has_\w+_privilege|\bsetting\b", re.I)
SELECT = re.compile(r"^\s*(?:--[^\n]*\n\s*|/\*.*?\*/\s*)*(select|with)\b", re.I | re.S)


def records(path):
    """Yields (pid, app, kind, text) for every log record, continuation lines joined."""
    cur = None
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            m = PREFIX.match(line)
            if m:
                if cur:
                    yield cur
                cur = [m.group(1), m.group(2), m.group(3), m.group(4)]
            elif cur:  # a continuation line: PostgreSQL indents it with a tab
                cur[3] += "\n" + (line[1:] if line.startswith("\t") else line)
    if cur:
        yield cur


def statements(path):
    """Yields (client, operation, sql, parameters) in log order (the
    clients run one at a time: a statement's DETAIL line follows it)."""
    pending = {}
    for pid, app, kind, text in records(path):
        if kind == "LOG":
            yield from pending.values()
            pending.clear()
            m = STMT.match(text)
            if m and app.startswith("cap:"):
                _, client, op = app.split(":", 2)
                pending[pid] = [client, op, m.group(1).strip(), None]
        elif kind == "DETAIL" and pid in pending and text.startswith("parameters: "):
            pending[pid][3] = text[len("parameters: "):]
    yield from pending.values()


def wanted(sql):
    return SELECT.match(sql) and CATALOG.search(sql)


def load_oids(path):
    oids = {}
    with open(path) as f:
        for line in f:
            oid, kind, name = line.rstrip("\n").split("\t")
            oids[oid] = "{{%s %s}}" % (kind, name)
    return oids


def symbolic(text, oids):
    if text is None:
        return None
    return re.sub(r"\b\d{5,10}\b", lambda m: oids.get(m.group(0), m.group(0)), text)


def main(log, oidfile, out):
    oids = load_oids(oidfile)
    corpus = collections.OrderedDict()
    seen = set()
    for client, op, sql, params in statements(log):
        sql, params = symbolic(sql, oids), symbolic(params, oids)
        key = (client, sql, params)
        if key in seen or not wanted(sql):
            continue
        seen.add(key)
        corpus.setdefault(client, []).append((op, sql, params))
    for client, entries in corpus.items():
        with open(os.path.join(out, client + ".sql"), "w") as f:
            f.write("-- Catalog queries of %s, captured by scripts/capture-catalog-queries.sh (README.md).\n" % client)
            for i, (op, sql, params) in enumerate(entries):
                if i:
                    f.write("-- next\n")
                f.write("-- %s %s\n" % (client, op.replace("\n", " ")))
                if params:
                    f.write("-- parameters: %s\n" % params.replace("\n", " "))
                f.write(sql.rstrip().rstrip(";") + "\n")
        print("%s: %d queries" % (client, len(entries)), file=sys.stderr)


main(sys.argv[1], sys.argv[2], sys.argv[3])
