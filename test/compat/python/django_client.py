"""Django 3.2 (Debian's python3-django) as its users run it: a project whose
settings point at the listener, the contrib auth and contenttypes apps, a
small app (DateTimeField, DecimalField, ArrayField, a foreign key),
makemigrations, migrate, ORM CRUD, .get(), nested atomic(), and inspectdb
compared with the models. argv: URL, scratch directory."""
import datetime
import decimal
import io
import os
import re
import sys
import textwrap

from compat import check, dsn_parts, expect, step

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


step("makemigrations", makemigrations)
step("migrate (auth, contenttypes, app)", migrate)
step("ORM create (AutoField ids)", create)
step(".get(), DateTimeField, DecimalField, ArrayField read back", get)
step(".get() inside atomic()", get_in_atomic)
step("nested atomic() rolled back", nested_atomic)
step("delete", delete)
step("inspectdb matches the models", inspectdb)
check("SELECT app, name FROM django_migrations ORDER BY app, name")
check("SELECT id, name, joined FROM shop_customer ORDER BY id")
check("SELECT id, customer_id, total, tags FROM shop_order ORDER BY id")
