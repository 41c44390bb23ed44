// Package pgruntime is the SQLite side of the postgres dialect: the
// functions pgdialect's translations call where SQLite's operators differ
// from PostgreSQL's (Register, on every connection of a postgres-dialect
// SQLite backend), the conversion of SQLite values to the PostgreSQL
// values a result column's type says (Value), and the Catalog read from a
// connection's schema (NewCatalog). Like the translation, every function
// here is part of consensus and versioned with pgdialect.Version.
package pgruntime
