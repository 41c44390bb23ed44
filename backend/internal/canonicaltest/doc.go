// Package canonicaltest holds the cross-engine test of canonical rows
// (backend.CanonicalReader): the same PostgreSQL statements run on a
// SQLite backend of the postgres dialect and on a PostgreSQL backend
// must give every row the same key and image, and every table the same
// statetree root. It has no code of its own: it exists because neither
// backend's package may import the other.
package canonicaltest
