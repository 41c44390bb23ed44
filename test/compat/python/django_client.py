"""Django 3.2 (Debian's python3-django) as its users run it: a project whose
settings point at the listener, the contrib auth and contenttypes apps, a
small app (DateTimeField, DecimalField, ArrayField, a foreign key),
makemigrations, migrate, ORM CRUD, .get(), nested atomic(), inspectdb
compared with the models, a later migration that adds a foreign key and
one that removes it (Django writes SET CONSTRAINTS for both), and loaddata
(which checks constraints with SET CONSTRAINTS ALL IMMEDIATE). argv: URL,
scratch directory."""
import datetime
import decimal
import io
import os
import re
import sys
import textwrap

from compat import check, dsn_parts, expect, set_context, step

url, work = sys.argv[1], sys.argv[2]
host, port, user, password, dbname = dsn_parts(url)

os.makedirs(os.path.join(work, "shop", "migrations"), exist_ok=True)
open(os.path.join(work, "shop", "__init__.py"), "w").close()
open(os.path.join(work, "shop", "migrations", "__init__.py"), "w").close()
open(os.path.join(work, "shop", "models.py"), "w").write(textwrap.dedent('''
    from django.contrib.postgres.fields import ArrayField
    from django.db import models

    class Customer(models.Model):
        name = models.CharField(max_length=80, unique=True)
        joined = models.DateTimeField()

    class Order(models.Model):
        customer = models.ForeignKey(Customer, on_delete=models.CASCADE)
        total = models.DecimalField(max_digits=8, decimal_places=2)
        placed = models.DateTimeField(auto_now_add=True)
        tags = ArrayField(models.CharField(max_length=20), default=list)
    '''))
open(os.path.join(work, "compat_settings.py"), "w").write(textwrap.dedent('''
    SECRET_KEY = "compat"
    USE_TZ = True
    TIME_ZONE = "UTC"
    INSTALLED_APPS = ["django.contrib.auth", "django.contrib.contenttypes", "django.contrib.postgres", "shop"]
    DATABASES = {"default": {"ENGINE": "django.db.backends.postgresql", "NAME": %r, "USER": %r,
                             "PASSWORD": %r, "HOST": %r, "PORT": %r}}
    DEFAULT_AUTO_FIELD = "django.db.models.AutoField"
    ''' % (dbname, user, password, host, str(port))))
sys.path.insert(0, work)
os.environ["DJANGO_SETTINGS_MODULE"] = "compat_settings"

import django  # noqa: E402

django.setup()
from django.contrib.auth.models import User  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection, transaction  # noqa: E402
from shop.models import Customer, Order  # noqa: E402

# Django's own record of its statements (CursorDebugWrapper, failed ones
# too) and transaction state, for the recap of a failed step.
connection.force_debug_cursor = True


def django_state():
    recent = [" ".join(q["sql"].split())[:160] for q in list(connection.queries_log)[-6:]]
    return "in_atomic_block=%s needs_rollback=%s autocommit=%s savepoints=%s; last statements: %s" % (
        connection.in_atomic_block, connection.needs_rollback, connection.autocommit, connection.savepoint_ids,
        " ; ".join(recent) or "none")


set_context(django_state)
JOINED = datetime.datetime(2026, 12, 1, 23, 9, 33, 293245, tzinfo=datetime.timezone.utc)


def makemigrations():
    call_command("makemigrations", "shop", verbosity=0)


def migrate():
    call_command("migrate", verbosity=0)
    tables = connection.introspection.table_names()
    for t in ("auth_user", "django_content_type", "django_migrations", "shop_customer", "shop_order"):
        expect(t in tables, "%s missing after migrate (%s)" % (t, tables))


def create():
    ann = Customer.objects.create(name="ann", joined=JOINED)
    expect(ann.pk is not None, "no primary key")
    Order.objects.create(customer=ann, total=decimal.Decimal("12.50"), tags=["new", "gift"])
    Order.objects.create(customer=ann, total=decimal.Decimal("3.00"))
    User.objects.create_user("bob", password="secret")


def get():
    ann = Customer.objects.get(name="ann")
    expect(ann.joined == JOINED, "joined read back as %r" % ann.joined)
    o = Order.objects.filter(customer=ann).order_by("id").first()
    expect((o.total, o.tags) == (decimal.Decimal("12.50"), ["new", "gift"]), "order %r %r" % (o.total, o.tags))
    expect(User.objects.get(username="bob").check_password("secret"), "auth: check_password")


def get_in_atomic():
    with transaction.atomic():
        ann = Customer.objects.get(name="ann")
        Order.objects.filter(customer=ann, total=decimal.Decimal("3.00")).update(total=decimal.Decimal("4.00"))
    expect(Order.objects.filter(total=decimal.Decimal("4.00")).count() == 1, "update inside atomic()")


def nested_atomic():
    with transaction.atomic():
        Customer.objects.create(name="kept", joined=JOINED)
        try:
            with transaction.atomic():
                Customer.objects.create(name="dropped", joined=JOINED)
                raise RuntimeError("roll back the inner block")
        except RuntimeError:
            pass
    names = sorted(Customer.objects.values_list("name", flat=True))
    expect(names == ["ann", "kept"], "after a rolled-back inner atomic(): %s" % names)


def delete():
    Customer.objects.filter(name="kept").delete()
    expect(Customer.objects.count() == 1, "delete")


# What inspectdb writes for each model field on PostgreSQL 15 itself.
INSPECTED = {
    "ShopCustomer": [r"name = models\.CharField\(unique=True, max_length=80\)",
                     r"joined = models\.DateTimeField\(\)"],
    "ShopOrder": [r"total = models\.DecimalField\(max_digits=8, decimal_places=2\)",
                  r"placed = models\.DateTimeField\(\)",
                  r"tags = models\.TextField\(\)  # This field type is a guess\.",
                  r"customer = models\.ForeignKey\(ShopCustomer, models\.DO_NOTHING\)"],
}


def inspectdb():
    out = io.StringIO()
    call_command("inspectdb", "shop_customer", "shop_order", stdout=out)
    text = out.getvalue()
    for model, fields in INSPECTED.items():
        expect("class %s(models.Model):" % model in text, "inspectdb wrote no model %s:\n%s" % (model, text))
        for f in fields:
            expect(re.search(f, text), "inspectdb's %s lacks %s:\n%s" % (model, f.replace("\\", ""), text))


ADD_FK = """
from django.db import migrations, models
import django.db.models.deletion


class Migration(migrations.Migration):
    dependencies = [("shop", "0001_initial")]
    operations = [migrations.AddField(
        model_name="order", name="referrer",
        field=models.ForeignKey(null=True, on_delete=django.db.models.deletion.SET_NULL,
                                related_name="referred", to="shop.customer"))]
"""

REMOVE_FK = """
from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("shop", "0002_order_referrer")]
    operations = [migrations.RemoveField(model_name="order", name="referrer")]
"""


def order_columns():
    with connection.cursor() as cur:
        return [c.name for c in connection.introspection.get_table_description(cur, "shop_order")]


def migrate_add_fk():
    open(os.path.join(work, "shop", "migrations", "0002_order_referrer.py"), "w").write(ADD_FK)
    call_command("migrate", "shop", verbosity=0)
    expect("referrer_id" in order_columns(), "no referrer_id after AddField: %s" % order_columns())
    with connection.cursor() as cur:
        constraints = connection.introspection.get_constraints(cur, "shop_order")
    fks = [c["foreign_key"] for c in constraints.values() if c["columns"] == ["referrer_id"] and c["foreign_key"]]
    expect(fks == [("shop_customer", "id")], "referrer_id's foreign key: %s" % constraints)


def migrate_remove_fk():
    open(os.path.join(work, "shop", "migrations", "0003_remove_order_referrer.py"), "w").write(REMOVE_FK)
    call_command("migrate", "shop", verbosity=0)
    expect("referrer_id" not in order_columns(), "referrer_id after RemoveField: %s" % order_columns())


FIXTURE = """[
 {"model": "shop.customer", "pk": 900, "fields": {"name": "fixture", "joined": "2026-12-02T10:00:00Z"}},
 {"model": "shop.order", "pk": 900, "fields": {"customer": 900, "total": "7.25", "placed": "2026-12-02T10:00:00Z", "tags": ["loaded"]}}
]"""


def loaddata():
    path = os.path.join(work, "fixture.json")
    open(path, "w").write(FIXTURE)
    call_command("loaddata", path, verbosity=0)
    o = Order.objects.get(pk=900)
    expect((o.customer.name, o.total) == ("fixture", decimal.Decimal("7.25")), "loaded %r %r" % (o.customer.name, o.total))


step("makemigrations", makemigrations)
step("migrate (auth, contenttypes, app)", migrate)
step("ORM create (AutoField ids)", create)
step(".get(), DateTimeField, DecimalField, ArrayField read back", get)
step(".get() inside atomic()", get_in_atomic)
step("nested atomic() rolled back", nested_atomic)
step("delete", delete)
step("inspectdb matches the models", inspectdb)
step("migrate: AddField of a foreign key (SET CONSTRAINTS ... IMMEDIATE)", migrate_add_fk)
step("migrate: RemoveField of a foreign key", migrate_remove_fk)
step("loaddata (SET CONSTRAINTS ALL IMMEDIATE)", loaddata)
check("SELECT app, name FROM django_migrations ORDER BY app, name")
check("SELECT id, name, joined FROM shop_customer ORDER BY id")
check("SELECT id, customer_id, total, tags FROM shop_order ORDER BY id")
