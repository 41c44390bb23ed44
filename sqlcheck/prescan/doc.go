// Package prescan is the bounded-work check every statement text passes
// before any parser sees it: one linear-time lexical pass, standard library
// only, that refuses a text whose size, token count, identifier length,
// nesting depth or literal nesting could exhaust a parser's or an engine's
// stack (PostgreSQL's libpg_query through cgo, where a stack overflow is a
// SIGSEGV no recover catches; the engines' own stack limits, which are
// node-local settings and must never decide a tx's outcome).
//
// Check(sql, dialect) is a pure function of the text and the dialect: its
// verdict, and its message, are the same on every node, so it is
// consensus-relevant (changing a limit changes which txs succeed and must
// be rolled out as a protocol upgrade). A refusal is an *Error naming the
// limit and the measured value; it wraps ErrLimit.
//
// # What is measured
//
// The text is lexed as its dialect's server lexes it: string literals
// (PostgreSQL 'x' with doubled quotes, E'x' also with backslash escapes,
// dollar quotes $tag$...$tag$; MySQL 'x' and "x" with backslash escapes;
// SQLite 'x'), quoted identifiers ("x", MySQL and SQLite backquotes,
// SQLite [x]),
// comments (-- and /* */, nested in PostgreSQL; MySQL's "--" only before a
// blank or control character, and #), so nothing inside a literal or a
// comment counts and nothing outside one is missed.
//
// The nesting depth is an upper bound on the depth of the expression tree
// any parser can build from the text. Groups are parentheses, brackets,
// braces, CASE ... END and, for PostgreSQL (PL/pgSQL bodies, BEGIN ATOMIC),
// the block keywords BEGIN, IF (not IF [NOT] EXISTS), LOOP closed by END;
// SQLite's BEGIN (trigger bodies) too. Within a group, commas and
// semicolons (and WHEN, THEN, ELSE in a CASE or block) separate siblings;
// a sibling segment is cut into pieces by AND and OR and by the low
// operators XOR, UNION, INTERSECT, EXCEPT, MINUS, which bind looser than
// every other operator. AND and OR add no depth: PostgreSQL and MariaDB
// gather a chain of them into one list node, and SQLite refuses one
// deeper than its own limit (1,000) with a clean error. A piece is as deep as its operator count (every operator
// character, PostgreSQL's "::", the keyword operators NOT, IS, LIKE,
// BETWEEN, IN, JOIN, COLLATE, AT, ... and SELECT, so that a nested
// subquery, the costliest level for PostgreSQL's stack, counts twice) plus
// its deepest group; a segment is as deep as its low operators plus its
// deepest piece: a chain of n binary or prefix operators over operands of
// depth d is at most n + d deep, however the grammar associates it. A
// group is one deeper than its deepest segment, and a group a keyword
// opens also counts as an operator where it stands (a stray END, an
// identifier in MySQL and SQLite, cannot hide a chain of CASEs). So
// `SELECT 1+1+...+1` with n terms measures n, `SELECT ((((1))))` 5.
//
// PostgreSQL's lexer rescans a run of operator characters from every token
// it cuts from it and, inside a comment too, from every "/*" in it:
// "/*/*/*..." costs it quadratic time. Stats.LexWork bounds that work.
// MySQL reads "//" as two divisions where the gate's parser reads a
// comment; the pre-scan refuses it (it also made the gate's tokenizer
// restart once per occurrence).
//
// DESIGN.md beside this file gives the limits and the measurements they
// rest on.
//
// Literal nesting is the depth of [ and { inside a string literal (outside
// the JSON strings in it): array and JSON input functions recurse per
// level with a stack limit that is each server's own.
package prescan
