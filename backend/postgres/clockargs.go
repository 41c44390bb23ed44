package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/relchain/relchain/backend"
)

// Clock words in arguments (backend/postgres/DESIGN.md, "Clock words in
// arguments"). A string argument is sent with type unknown (encodeArgs),
// so the server gives it the type its context asks for; bound to a
// date/time parameter, 'now', 'today', 'tomorrow' or 'yesterday' (with a
// zone or a time, or inside an array or a row) is read with the server's
// own clock, which differs from node to node. The gate refuses such
// literals in the statement text; checkClockArgs refuses them as
// arguments of a block's statement.
//
// The rule depends only on the statement text, the schema and the
// arguments, so it is the same on every node: an argument is refused if a
// clock word stands in it as a word of its own (clockArgWord) and the type
// the server infers for its parameter is, or contains, a date/time type
// (date, time, timetz, timestamp, timestamptz; through a domain, an array,
// a range, a multirange or a row type's columns). The same word bound to a
// text parameter stays accepted. Statements without such an argument cost
// nothing more; one with it costs two round trips (the deferred savepoint
// statements, then a Describe of the statement), and a catalog query when
// the parameter's type is not built in.

// clockWords are the special date/time inputs that read the clock.
var clockWords = map[string]bool{"now": true, "today": true, "tomorrow": true, "yesterday": true}

// clockArgWord returns the first clock word of s, lower case, standing as
// a word of its own (between characters that are not ASCII letters:
// spaces, digits, punctuation, the braces and brackets of arrays, ranges
// and rows, other letters — PostgreSQL's date/time parser splits words
// at them too), or "". The gateway's check of a pgwire parameter
// (gateway/pgtext.go clockWord) splits the same way.
func clockArgWord(s string) string {
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') }) {
		if len(f) <= len("yesterday") {
			if w := strings.ToLower(f); clockWords[w] {
				return w
			}
		}
	}
	return ""
}

// builtinClockTypes are the built-in types (OIDs below 10,000, which
// PostgreSQL assigns by hand and never changes) that are or contain a
// date/time type: date, time, timestamp, timestamptz, timetz, their
// arrays, the ranges and multiranges over them and their arrays, and the
// row type of pg_authid (rolvaliduntil). TestBuiltinClockTypes holds it
// equal to clockTypesQuery's answer. Other types (OIDs from 10,000:
// information_schema's domains, catalog views' row types, the network's
// tables' row types) are looked up with clockTypesQuery.
var builtinClockTypes = map[uint32]bool{
	1082: true, 1083: true, 1114: true, 1115: true, 1182: true, 1183: true, 1184: true, 1185: true,
	1266: true, 1270: true, 2842: true, 3908: true, 3909: true, 3910: true, 3911: true, 3912: true,
	3913: true, 4533: true, 4534: true, 4535: true, 6152: true, 6153: true, 6155: true,
}

// firstGenbkiObjectID is PostgreSQL's FirstGenbkiObjectId: OIDs below it
// are assigned by hand in the catalogs' sources.
const firstGenbkiObjectID = 10000

// dateTimeTypes are the OIDs of the date/time types whose input reads the
// clock: date, time, timestamp, timestamptz, timetz.
const dateTimeTypes = "1082, 1083, 1114, 1184, 1266"

// clockTypesQuery returns which of the type OIDs $1 are or contain a
// date/time type: through a domain's base type, an array's element, a
// range's subtype, a multirange's range, a row type's columns.
const clockTypesQuery = `WITH RECURSIVE t(root, oid) AS (
	SELECT r, r FROM unnest($1::oid[]) AS r
	UNION
	SELECT t.root, x.oid FROM t JOIN pg_catalog.pg_type p ON p.oid = t.oid
	CROSS JOIN LATERAL (
		SELECT p.typbasetype WHERE p.typbasetype <> 0
		UNION ALL SELECT p.typelem WHERE p.typelem <> 0
		UNION ALL SELECT g.rngsubtype FROM pg_catalog.pg_range g WHERE g.rngtypid = p.oid
		UNION ALL SELECT g.rngtypid FROM pg_catalog.pg_range g WHERE g.rngmultitypid = p.oid
		UNION ALL SELECT a.atttypid FROM pg_catalog.pg_attribute a
			WHERE p.typrelid <> 0 AND a.attrelid = p.typrelid AND a.attnum > 0 AND NOT a.attisdropped
	) x(oid)
) SELECT DISTINCT root FROM t WHERE oid IN (` + dateTimeTypes + `)`

// checkClockArgs refuses (22007) a string argument of the block's
// statement sql holding a clock word when its parameter is of a date/time
// type (see above). It sends the deferred savepoint statements first, as
// any statement of the block does. A failure of the Describe (a statement
// that does not parse or refers to nothing) is the statement's own, as its
// execution would have failed the same way: it aborts the tx's savepoint.
// The caller holds the backend's mutex.
func (k *session) checkClockArgs(ctx context.Context, sql string, args []any) error {
	suspect := make(map[int]string)
	for i, a := range args {
		if s, ok := a.(string); ok {
			if w := clockArgWord(s); w != "" {
				suspect[i] = w
			}
		}
	}
	if len(suspect) == 0 {
		return nil
	}
	_, oids, _, err := encodeArgs(args)
	if err != nil {
		return err
	}
	if err := k.flush(ctx); err != nil {
		return err
	}
	pc := k.conn.PgConn()
	desc, err := pc.Prepare(ctx, "", sql, oids)
	if err != nil {
		return k.describeFailed(ctx, err)
	}
	clock := make(map[uint32]bool)
	var ask []string
	for i := range args {
		if _, ok := suspect[i]; !ok || i >= len(desc.ParamOIDs) {
			continue
		}
		if oid := desc.ParamOIDs[i]; oid < firstGenbkiObjectID {
			clock[oid] = builtinClockTypes[oid]
		} else {
			ask = append(ask, strconv.FormatUint(uint64(oid), 10))
		}
	}
	if len(ask) > 0 {
		res := pc.ExecParams(ctx, clockTypesQuery, [][]byte{[]byte("{" + strings.Join(ask, ",") + "}")}, nil, nil, nil).Read()
		if res.Err != nil {
			return k.describeFailed(ctx, res.Err)
		}
		for _, r := range res.Rows {
			oid, err := strconv.ParseUint(string(r[0]), 10, 32)
			if err != nil {
				return fmt.Errorf("postgres: exec: clock types: %w", err)
			}
			clock[uint32(oid)] = true
		}
	}
	for i := range args { // in argument order: the first one is named
		w, ok := suspect[i]
		if ok && i < len(desc.ParamOIDs) && clock[desc.ParamOIDs[i]] {
			return &backend.Error{Class: backend.ClassOfSQLState("22007"), SQLState: "22007",
				Message: fmt.Sprintf("argument $%d: the date/time value '%s' is resolved with each node's clock; pass the time itself, or use now() in the statement, which reads the block's time", i+1, w)}
		}
	}
	return nil
}

// describeFailed returns the failure of checkClockArgs' Describe or
// catalog query as Exec returns a statement's: a server error of the
// statement aborts the tx's savepoint, anything else is a node fault.
func (k *session) describeFailed(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return k.interrupted(ctx, "exec", err)
	}
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || nodeFault(pgErr.Code) || stackDependent(pgErr) {
		return fmt.Errorf("postgres: exec: describe: %w", err)
	}
	k.aborted = true
	return asBackendError(err)
}
