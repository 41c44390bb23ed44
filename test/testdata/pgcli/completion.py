"""pgcli's completion refresh, run as pgcli's completion thread runs it.

Usage: python3 completion.py HOST PORT USER PASSWORD

Connects with pgcli's own PGExecute, runs CompletionRefresher's refresh
(every refresher: schemata, tables, views, types, databases, casing,
functions) on that connection, then each PGExecute catalog method once
more, and prints what it learned as JSON. Any exception (pgcli's
completion thread would print its traceback) fails the program.
"""

import json
import sys

from pgcli.completion_refresher import CompletionRefresher
from pgcli.pgexecute import PGExecute

host, port, user, password = sys.argv[1:5]
ex = PGExecute(database="relchain", user=user, password=password, host=host, port=port, sslmode="disable")

completers = []
CompletionRefresher()._bg_refresh(ex, None, completers.append, None, {"single_connection": True})
if len(completers) != 1:
    sys.exit("the completion refresh produced no completer")
completer = completers[0]

out = {
    "refreshers": list(CompletionRefresher.refreshers),
    "completer_databases": list(completer.databases),
    "completer_tables": sorted(completer.dbmetadata["tables"].get("public", {})),
    "search_path": ex.search_path(),
    "schemata": ex.schemata(),
    "tables": [list(r) for r in ex.tables()],
    "views": [list(r) for r in ex.views()],
    "table_columns": [list(r)[:3] for r in ex.table_columns()],
    "view_columns": [list(r)[:3] for r in ex.view_columns()],
    "databases": ex.databases(),
    "full_databases": [list(r) for r in ex.full_databases()[0]],
    "foreignkeys": [list(r) for r in ex.foreignkeys()],
    "functions": sorted(f.func_name for f in ex.functions() if f.schema_name == "public"),
    "datatypes": [list(r) for r in ex.datatypes()],
    "casing": list(ex.casing()),
    "view_definition": ex.view_definition("rich"),
    "socket_directory": ex.get_socket_directory(),
}
print(json.dumps(out, default=str))
