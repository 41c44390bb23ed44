-- The schema every corpus entry was captured against (README.md). The
-- differential test (clients_test.go) creates it in a fresh database and
-- declares the same objects as a pgcatalog.Schema (clientsSchema).
CREATE TABLE authors (
    id serial PRIMARY KEY,
    name varchar(100) NOT NULL,
    email varchar(255) NOT NULL,
    active boolean NOT NULL DEFAULT true,
    created_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT authors_email_key UNIQUE (email)
);
COMMENT ON TABLE authors IS 'People who write books';

CREATE TABLE books (
    id serial PRIMARY KEY,
    author_id integer NOT NULL,
    title varchar(200) NOT NULL,
    price numeric(10,2),
    in_print boolean DEFAULT false,
    published_at timestamptz,
    CONSTRAINT books_author_id_fkey FOREIGN KEY (author_id) REFERENCES authors (id) ON DELETE CASCADE,
    CONSTRAINT books_price_check CHECK (price >= 0)
);
COMMENT ON COLUMN books.title IS 'Title as printed';
CREATE INDEX books_title_idx ON books (title);

CREATE VIEW books_in_print AS SELECT id, title, price FROM books WHERE in_print;

CREATE SEQUENCE invoice_seq START 1000;
