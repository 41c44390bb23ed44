#!/usr/bin/python3
"""ORM CRUD loops for issue 33's measurement (scripts/bench-orm.sh runs it).

  bench-orm.py django|sqlalchemy URL N CLIENTS SCRATCH_DIR

Creates N rows (the ORM's create with its generated id), gets each one by
its key, and updates each one, with CLIENTS threads (each its own
connection) sharing the N operations of a phase. Prints one JSON line per
phase: ops/s and the median and 95th-percentile latency of one operation.
"""
import datetime
import decimal
import json
import os
import statistics
import sys
import textwrap
import threading
import time
import urllib.parse

orm, url, n, clients, scratch = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
u = urllib.parse.urlparse(url)
WHEN = datetime.datetime(2026, 12, 1, 12, 0, tzinfo=datetime.timezone.utc)


def run_phase(name, work, items):
    """Runs work(client, item) for every item over the client threads."""
    lat = []
    lock = threading.Lock()
    chunks = [items[i::clients] for i in range(clients)]
    errors = []

    retries = [0]

    def attempt(c, it):
        """work(c, it), retried on 40001 as an application does (at most 50 tries)."""
        for _ in range(50):
            try:
                return work(c, it)
            except Exception as e:
                if getattr(getattr(e, "orig", e), "pgcode", None) != "40001":
                    raise
                with lock:
                    retries[0] += 1
        raise RuntimeError("still 40001 after 50 tries")

    def worker(c, chunk):
        mine = []
        try:
            for it in chunk:
                t0 = time.perf_counter()
                attempt(c, it)
                mine.append(time.perf_counter() - t0)
        except Exception as e:  # reported, the run is void
            errors.append("%s: %s" % (type(e).__name__, e))
        with lock:
            lat.extend(mine)

    threads = [threading.Thread(target=worker, args=(c, chunk)) for c, chunk in enumerate(chunks)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    lat.sort()
    out = {"orm": orm, "phase": name, "ops": len(lat), "clients": clients, "seconds": round(wall, 3),
           "ops_per_s": round(len(lat) / wall, 1) if wall else 0,
           "p50_ms": round(1000 * statistics.median(lat), 1) if lat else None,
           "p95_ms": round(1000 * lat[int(0.95 * (len(lat) - 1))], 1) if lat else None,
           "retries_40001": retries[0]}
    if errors:
        out["errors"] = errors[:3]
    print(json.dumps(out), flush=True)
    return out


def django_bench():
    app = os.path.join(scratch, "benchapp")
    os.makedirs(os.path.join(app, "migrations"), exist_ok=True)
    for f in ("__init__.py", os.path.join("migrations", "__init__.py")):
        open(os.path.join(app, f), "a").close()
    open(os.path.join(app, "models.py"), "w").write(textwrap.dedent('''
        from django.db import models
        class Item(models.Model):
            name = models.CharField(max_length=80)
            price = models.DecimalField(max_digits=10, decimal_places=2)
            at = models.DateTimeField()
        '''))
    sys.path.insert(0, scratch)
    from django.conf import settings
    settings.configure(
        USE_TZ=True, TIME_ZONE="UTC", INSTALLED_APPS=["benchapp"], DEFAULT_AUTO_FIELD="django.db.models.AutoField",
        DATABASES={"default": {"ENGINE": "django.db.backends.postgresql", "NAME": u.path.lstrip("/"),
                               "USER": urllib.parse.unquote(u.username or ""), "PASSWORD": urllib.parse.unquote(u.password or ""),
                               "HOST": u.hostname, "PORT": str(u.port)}})
    import django
    django.setup()
    from django.core.management import call_command
    from django.db import connection
    from benchapp.models import Item
    call_command("makemigrations", "benchapp", verbosity=0)
    call_command("migrate", verbosity=0)
    ids = [None] * n

    def create(c, i):
        ids[i] = Item.objects.create(name="item%d" % i, price=decimal.Decimal("1.50"), at=WHEN).pk

    def get(c, i):
        assert Item.objects.get(pk=ids[i]).name == "item%d" % i

    def update(c, i):
        assert Item.objects.filter(pk=ids[i]).update(price=decimal.Decimal("2.50")) == 1

    for name, fn in (("create", create), ("get", get), ("update", update)):
        run_phase(name, fn, list(range(n)))
    connection.close()


def sqlalchemy_bench():
    from sqlalchemy import Column, DateTime, Integer, Numeric, String, create_engine
    from sqlalchemy.orm import Session, declarative_base
    Base = declarative_base()

    class Item(Base):
        __tablename__ = "bench_item"
        id = Column(Integer, primary_key=True)
        name = Column(String(80), nullable=False)
        price = Column(Numeric(10, 2))
        at = Column(DateTime(timezone=True))

    engine = create_engine(url.replace("postgres://", "postgresql+psycopg2://", 1), future=True,
                           pool_size=clients, max_overflow=0)
    Base.metadata.create_all(engine)
    ids = [None] * n

    def create(c, i):
        with Session(engine) as s:
            it = Item(name="item%d" % i, price=decimal.Decimal("1.50"), at=WHEN)
            s.add(it)
            s.commit()
            ids[i] = it.id

    def get(c, i):
        with Session(engine) as s:
            assert s.get(Item, ids[i]).name == "item%d" % i

    def update(c, i):
        with Session(engine) as s:
            s.get(Item, ids[i]).price = decimal.Decimal("2.50")
            s.commit()
    for name, fn in (("create", create), ("get", get), ("update", update)):
        run_phase(name, fn, list(range(n)))
    engine.dispose()


{"django": django_bench, "sqlalchemy": sqlalchemy_bench}[orm]()
