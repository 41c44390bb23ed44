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
// the block keywords BEGIN, IF, LOOP closed by END. Within a group, commas
// (and WHEN, THEN, ELSE in a CASE) separate siblings; each sibling segment
// is as deep as its operator count (every operator character, "::", and
// the keyword operators AND, OR, NOT, IS, LIKE, BETWEEN, IN, UNION, JOIN,
// COLLATE, AT, ...) plus its deepest group: a chain of n binary or prefix
// operators over operands of depth d is at most n + d deep, however the
// grammar associates it. A group is one deeper than its deepest segment.
// So `1+1+...+1` with n terms measures n-1, `((((1))))` measures 4, and
// `((1+1)+1)+1` measures 4 as well.
//
// Literal nesting is the depth of [ and { inside a string literal (outside
// the JSON strings in it): array and JSON input functions recurse per
// level with a stack limit that is each server's own.
package prescan
