"""SQLAlchemy 1.4's ORM (Debian's python3-sqlalchemy, psycopg2 driver) as
its users write it: declarative models, create_all, session CRUD,
begin_nested(), a 40001 conflict retried. argv: URL, table prefix."""
import datetime
import decimal
import sys

from sqlalchemy import (Column, DateTime, ForeignKey, Integer, Numeric, String, create_engine, inspect, select)
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session, declarative_base, relationship

from compat import check, expect, sqlstate, step

url, p = sys.argv[1], sys.argv[2]
url = url.replace("postgres://", "postgresql+psycopg2://", 1)

Base = declarative_base()


class Author(Base):
    __tablename__ = p + "_author"
    id = Column(Integer, primary_key=True)
    name = Column(String(80), nullable=False, unique=True)
    books = relationship("Book", back_populates="author")


class Book(Base):
    __tablename__ = p + "_book"
    id = Column(Integer, primary_key=True)
    title = Column(String(200), nullable=False)
    price = Column(Numeric(8, 2))
    published = Column(DateTime(timezone=True))
    author_id = Column(Integer, ForeignKey(Author.id), nullable=False)
    author = relationship(Author, back_populates="books")


class Counter(Base):
    __tablename__ = p + "_counter"
    id = Column(Integer, primary_key=True)
    n = Column(Integer, nullable=False)


engine = create_engine(url, future=True)
WHEN = datetime.datetime(2026, 12, 1, 23, 9, 33, 293245, tzinfo=datetime.timezone.utc)


def connect():
    with engine.connect() as c:
        expect(c.exec_driver_sql("SELECT 1").scalar() == 1, "SELECT 1")


def create_all():
    Base.metadata.create_all(engine)
    names = inspect(engine).get_table_names()
    for t in Base.metadata.tables:
        expect(t in names, "%s missing from get_table_names() %s" % (t, names))


def create():
    with Session(engine) as s:
        ann = Author(name="ann")
        s.add_all([ann, Book(title="one", price=decimal.Decimal("9.99"), published=WHEN, author=ann),
                   Book(title="two", author=ann)])
        s.commit()
        expect(ann.id is not None and all(b.id is not None for b in ann.books), "no generated ids")


def read():
    with Session(engine) as s:
        ann = s.execute(select(Author).where(Author.name == "ann")).scalar_one()
        books = sorted((b.title, b.price, b.published) for b in ann.books)
        expect(books == [("one", decimal.Decimal("9.99"), WHEN), ("two", None, None)], books)
        first = s.get(Book, ann.books[0].id)
        expect(first is not None, "session.get")


def update_delete():
    with Session(engine) as s:
        b = s.execute(select(Book).where(Book.title == "two")).scalar_one()
        b.price = decimal.Decimal("1.25")
        s.commit()
        s.delete(s.execute(select(Book).where(Book.title == "one")).scalar_one())
        s.commit()
        titles = [b.title for b in s.execute(select(Book).order_by(Book.id)).scalars()]
        expect(titles == ["two"], titles)


def nested():
    with Session(engine) as s:
        ann = s.execute(select(Author).where(Author.name == "ann")).scalar_one()
        s.add(Book(title="kept", author=ann))
        sp = s.begin_nested()
        s.add(Book(title="dropped", author=ann))
        s.flush()
        sp.rollback()
        s.commit()
        titles = sorted(b.title for b in s.execute(select(Book)).scalars())
        expect(titles == ["kept", "two"], "after begin_nested() rolled back: %s" % titles)


def conflict():
    with Session(engine) as s:
        s.add(Counter(id=1, n=0))
        s.commit()
    a, b = Session(engine), Session(engine)
    ca, cb = a.get(Counter, 1), b.get(Counter, 1)
    ca.n += 1
    cb.n += 1
    codes = []
    for s in (a, b):
        try:
            s.commit()
            continue
        except DBAPIError as e:
            codes.append(sqlstate(e))
            s.rollback()
        for _ in range(5):  # what an application's retry loop does
            try:
                s.get(Counter, 1).n += 1
                s.commit()
                break
            except DBAPIError as e:
                codes.append(sqlstate(e))
                s.rollback()
    a.close()
    b.close()
    with Session(engine) as s:
        n = s.get(Counter, 1).n
    expect(codes[:1] == ["40001"], "SQLSTATEs %s, want one 40001" % codes)
    expect(n == 2, "n = %d after the retry, want 2" % n)


step("connect", connect)
step("create_all (declarative models)", create_all)
step("session: add, commit (RETURNING ids)", create)
step("session: select, relationship, get", read)
step("session: update, delete", update_delete)
step("begin_nested() rolled back", nested)
step("40001 conflict, retried", conflict)
check("SELECT id, name FROM %s_author ORDER BY id" % p)
check("SELECT id, title, price, author_id FROM %s_book ORDER BY id" % p)
check("SELECT id, n FROM %s_counter ORDER BY id" % p)
