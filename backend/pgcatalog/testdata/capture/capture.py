"""Runs one Python client's schema-reading operations against the corpus
schema (../clients/schema.sql) so that the server log records the catalog
queries each one sends (scripts/capture-catalog-queries.sh drives it).

Before each operation the session's application_name is set to
"cap:<client>:<operation>"; the server's log_line_prefix carries it, and
extract.py files every statement under the operation that sent it. The
connection's first application_name (set at connect) names the connect.

argv: client (sqlalchemy, alembic, django, pgcli), host, port, user,
database, scratch directory."""
import io
import os
import sys
import textwrap

client, host, port, user, dbname, work = sys.argv[1:7]


def tag(op):
    return "cap:%s:%s" % (client, op)


def set_app(cur, op):
    cur.execute("SET application_name = %s", (tag(op),))


def sqlalchemy_ops():
    from sqlalchemy import create_engine, inspect
    from sqlalchemy.pool import StaticPool
    url = "postgresql+psycopg2://%s@%s:%s/%s" % (user, host, port, dbname)
    engine = create_engine(url, poolclass=StaticPool,
                           connect_args={"application_name": tag("first connect")})
    with engine.connect() as conn:
        insp = inspect(conn)

        def op(name, fn):
            conn.exec_driver_sql("SET application_name = '%s'" % tag(name))
            fn()
        op("get_schema_names", insp.get_schema_names)
        op("get_table_names", insp.get_table_names)
        op("get_view_names", insp.get_view_names)
        op("get_view_definition books_in_print", lambda: insp.get_view_definition("books_in_print"))
        op("has_table authors", lambda: insp.has_table("authors"))
        op("has_table missing", lambda: insp.has_table("missing"))
        op("has_sequence invoice_seq", lambda: conn.dialect.has_sequence(conn, "invoice_seq"))
        op("get_sequence_names", insp.get_sequence_names)
        for t in ("authors", "books", "books_in_print"):
            op("get_columns " + t, lambda: insp.get_columns(t))
        for t in ("authors", "books"):
            op("get_pk_constraint " + t, lambda: insp.get_pk_constraint(t))
            op("get_foreign_keys " + t, lambda: insp.get_foreign_keys(t))
            op("get_indexes " + t, lambda: insp.get_indexes(t))
            op("get_unique_constraints " + t, lambda: insp.get_unique_constraints(t))
            op("get_check_constraints " + t, lambda: insp.get_check_constraints(t))
            op("get_table_comment " + t, lambda: insp.get_table_comment(t))


def alembic_ops():
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext
    from sqlalchemy import (Boolean, CheckConstraint, Column, DateTime, ForeignKey, Index, Integer, MetaData,
                            Numeric, String, Table, UniqueConstraint, create_engine)
    from sqlalchemy.pool import StaticPool
    md = MetaData()
    Table("authors", md,
          Column("id", Integer, primary_key=True),
          Column("name", String(100), nullable=False),
          Column("email", String(255), nullable=False),
          Column("active", Boolean, nullable=False),
          Column("created_at", DateTime(timezone=True), nullable=False),
          UniqueConstraint("email", name="authors_email_key"), comment="People who write books")
    Table("books", md,
          Column("id", Integer, primary_key=True),
          Column("author_id", Integer, ForeignKey("authors.id", ondelete="CASCADE"), nullable=False),
          Column("title", String(200), nullable=False, comment="Title as printed"),
          Column("price", Numeric(10, 2)),
          Column("in_print", Boolean),
          Column("published_at", DateTime(timezone=True)),
          Column("isbn", String(13)),  # not in the database: autogenerate adds it
          CheckConstraint("price >= 0", name="books_price_check"),
          Index("books_title_idx", "title"))
    url = "postgresql+psycopg2://%s@%s:%s/%s" % (user, host, port, dbname)
    engine = create_engine(url, poolclass=StaticPool,
                           connect_args={"application_name": tag("first connect")})
    with engine.connect() as conn:
        conn.exec_driver_sql("SET application_name = '%s'" % tag("MigrationContext.configure"))
        mc = MigrationContext.configure(conn, opts={"compare_type": True, "compare_server_default": True})
        conn.exec_driver_sql("SET application_name = '%s'" % tag("compare_metadata (autogenerate)"))
        diffs = compare_metadata(mc, md)
        print("alembic diffs:", diffs, file=sys.stderr)


def django_ops():
    os.makedirs(work, exist_ok=True)
    open(os.path.join(work, "cap_settings.py"), "w").write(textwrap.dedent('''
        SECRET_KEY = "capture"
        USE_TZ = True
        TIME_ZONE = "UTC"
        INSTALLED_APPS = ["django.contrib.contenttypes", "django.contrib.postgres"]
        DATABASES = {"default": {"ENGINE": "django.db.backends.postgresql", "NAME": %r, "USER": %r,
                                 "HOST": %r, "PORT": %r, "OPTIONS": {"application_name": %r}}}
        DEFAULT_AUTO_FIELD = "django.db.models.AutoField"
        ''' % (dbname, user, host, port, tag("connect"))))
    sys.path.insert(0, work)
    os.environ["DJANGO_SETTINGS_MODULE"] = "cap_settings"
    import django
    django.setup()
    from django.core.management import call_command
    from django.db import connection
    from django.db.migrations.recorder import MigrationRecorder
    intro = connection.introspection
    connection.ensure_connection()
    with connection.cursor() as cur:
        set_app(cur, "migrate: MigrationRecorder.has_table")
        MigrationRecorder(connection).has_table()
        set_app(cur, "get_table_list")
        intro.get_table_list(cur)
        for t in ("authors", "books"):
            set_app(cur, "get_table_description " + t)
            intro.get_table_description(cur, t)
            set_app(cur, "get_relations " + t)
            intro.get_relations(cur, t)
            set_app(cur, "get_constraints " + t)
            intro.get_constraints(cur, t)
            set_app(cur, "get_sequences " + t)
            intro.get_sequences(cur, t)
        set_app(cur, "get_primary_key_column books")
        intro.get_primary_key_column(cur, "books")
        set_app(cur, "inspectdb")
    out = io.StringIO()
    call_command("inspectdb", stdout=out)


def pgcli_ops():
    os.environ["PGAPPNAME"] = tag("connect")
    from pgcli.completion_refresher import CompletionRefresher
    from pgcli.pgcompleter import PGCompleter
    from pgcli.pgexecute import PGExecute
    from pgspecial.main import PGSpecial
    special = PGSpecial()
    ex = PGExecute(dbname, user, "", host, port)

    def run(sql):
        for _ in ex.run(sql, pgspecial=special):
            pass
    completer = PGCompleter(smart_completion=True, pgspecial=special, settings={})
    for name, refresh in CompletionRefresher.refreshers.items():
        run("SET application_name = '%s'" % tag("completion refresher: " + name))
        refresh(completer, ex)
    for cmd in ("\\dt", "\\d authors", "\\d books", "\\dn", "\\di", "\\dv", "\\ds", "\\df", "\\dT", "\\l", "\\du"):
        run("SET application_name = '%s'" % tag(cmd))
        run(cmd)


{"sqlalchemy": sqlalchemy_ops, "alembic": alembic_ops, "django": django_ops, "pgcli": pgcli_ops}[client]()
