package postgres

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/internal/sqlstore"
)

// Type OIDs that execParams encodes or decodes itself.
const (
	oidUnknown = 0
	oidBool    = 16
	oidBytea   = 17
	oidInt8    = 20
	oidInt2    = 21
	oidInt4    = 23
	oidFloat4  = 700
	oidFloat8  = 701
)

// execParams runs exactly one statement with positional arguments and
// returns its columns, rows and rows affected.
//
// It goes through pgconn.ExecParams, i.e. the extended protocol with the
// unnamed statement (Parse, Bind, Describe, Execute, Sync in one round
// trip), which is what pgx calls QueryExecModeExec. No prepared statement or
// result description is cached on the client. That matters for
// determinism: with a statement cache, a statement prepared before a DDL
// (ALTER TABLE, DROP/CREATE of the table it reads) fails afterwards with
// "cached plan must not change result type" — on a node whose cache held
// it, not on a node that had just restarted. The same tx would then succeed
// on one validator and fail on another. Re-parsing every statement costs
// little next to consensus. The extended protocol also rejects more than one
// statement per text.
//
// Arguments are sent as text with the types a literal would get: int64 as
// int8, float64 as float8, bool as bool, []byte as bytea (binary) and
// string and nil as "unknown", so the server infers their type from the
// context as it does for a quoted literal ('2024-01-01', '12.50', '{}').
//
// Results are requested in text format for every column and converted by
// convertValue. If sortRows, rows are sorted by their text form: see block.
func execParams(ctx context.Context, pc *pgconn.PgConn, sql string, args []any, sortRows bool) (*backend.Rows, error) {
	values, oids, formats, err := encodeArgs(args)
	if err != nil {
		return nil, err
	}
	return collect(pc.ExecParams(ctx, sql, values, oids, formats, nil), sortRows)
}

// encodedStmt is a statement with its encoded arguments, sent as the
// prepared statement name if set, else as the unnamed statement sql.
type encodedStmt struct {
	sql, name string
	values    [][]byte
	oids      []uint32
	formats   []int16
}

// execEncoded runs the utility statements prefix (no arguments, no rows:
// SAVEPOINT, RELEASE, SET LOCAL) and then st as execParams does, all in one
// round trip: one batch of extended-protocol messages ending in a single
// Sync. The server runs them in order and skips the rest after the first
// error. A failure of a prefix statement is returned wrapped in
// *prefixError; the statement's own result and failure are execParams'.
func execEncoded(ctx context.Context, pc *pgconn.PgConn, prefix []string, names map[string]string, st encodedStmt, sortRows bool) (*backend.Rows, error) {
	if len(prefix) == 0 && st.name == "" {
		return collect(pc.ExecParams(ctx, st.sql, st.values, st.oids, st.formats, nil), sortRows)
	}
	batch := &pgconn.Batch{}
	for _, p := range prefix {
		if name, ok := names[p]; ok {
			batch.ExecPrepared(name, nil, nil, nil)
		} else {
			batch.ExecParams(p, nil, nil, nil, nil)
		}
	}
	if st.name != "" {
		batch.ExecPrepared(st.name, st.values, st.formats, nil)
	} else {
		batch.ExecParams(st.sql, st.values, st.oids, st.formats, nil)
	}
	mrr := pc.ExecBatch(ctx, batch)
	for _, p := range prefix {
		if !mrr.NextResult() {
			err := mrr.Close()
			if err == nil {
				err = errors.New("no result")
			}
			return nil, &prefixError{stmt: p, err: err}
		}
		if _, err := mrr.ResultReader().Close(); err != nil {
			_ = mrr.Close()
			return nil, &prefixError{stmt: p, err: err}
		}
	}
	if !mrr.NextResult() {
		err := mrr.Close()
		if err == nil {
			err = errors.New("postgres: no result for the statement")
		}
		return nil, err
	}
	rows, err := collect(mrr.ResultReader(), sortRows)
	if cerr := mrr.Close(); err == nil && cerr != nil {
		return nil, cerr
	}
	return rows, err
}

// prefixError is the failure of a utility statement execAfter ran before
// the statement: never the statement's fault.
type prefixError struct {
	stmt string
	err  error
}

func (e *prefixError) Error() string { return fmt.Sprintf("%s: %v", e.stmt, e.err) }
func (e *prefixError) Unwrap() error { return e.err }

// collect reads one statement's result from rr and converts it (see
// execParams).
func collect(rr *pgconn.ResultReader, sortRows bool) (*backend.Rows, error) {
	return collectBounded(rr, sortRows, nil)
}

// collectBounded is collect that fails once the result exceeds bound (nil:
// no bound); it then stops reading (closing rr discards the rest).
func collectBounded(rr *pgconn.ResultReader, sortRows bool, bound *resultBound) (*backend.Rows, error) {
	var raw [][][]byte
	for rr.NextRow() {
		vals := rr.Values()
		if err := bound.add(vals); err != nil {
			return nil, err // the caller closes the connection: no draining
		}
		row := make([][]byte, len(vals))
		for i, v := range vals {
			if v != nil {
				row[i] = append(make([]byte, 0, len(v)), v...)
			}
		}
		raw = append(raw, row)
	}
	fds := append([]pgconn.FieldDescription(nil), rr.FieldDescriptions()...)
	tag, err := rr.Close()
	if err != nil {
		return nil, err
	}

	if sortRows && len(raw) > 1 {
		sort.SliceStable(raw, func(i, j int) bool { return compareRaw(raw[i], raw[j]) < 0 })
	}
	out := &backend.Rows{Unordered: sortRows}
	if len(fds) > 0 {
		out.Columns = make([]string, len(fds))
		for i, fd := range fds {
			out.Columns[i] = fd.Name
		}
	}
	if len(raw) > 0 {
		out.Rows = make([][]any, len(raw))
		for i, r := range raw {
			row := make([]any, len(r))
			for j, v := range r {
				if row[j], err = convertValue(fds[j].DataTypeOID, v); err != nil {
					return nil, fmt.Errorf("column %q: %w", fds[j].Name, err)
				}
			}
			out.Rows[i] = row
		}
	}
	if tag.Insert() || tag.Update() || tag.Delete() || strings.HasPrefix(tag.String(), "MERGE ") {
		out.RowsAffected = tag.RowsAffected()
	}
	return out, nil
}

func encodeArgs(args []any) (values [][]byte, oids []uint32, formats []int16, err error) {
	if len(args) == 0 {
		return nil, nil, nil, nil
	}
	values = make([][]byte, len(args))
	oids = make([]uint32, len(args))
	formats = make([]int16, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case nil:
			oids[i] = oidUnknown
		case int64:
			values[i], oids[i] = strconv.AppendInt(nil, v, 10), oidInt8
		case int:
			values[i], oids[i] = strconv.AppendInt(nil, int64(v), 10), oidInt8
		case int32:
			values[i], oids[i] = strconv.AppendInt(nil, int64(v), 10), oidInt8
		case float64:
			values[i], oids[i] = formatFloat(v), oidFloat8
		case bool:
			values[i], oids[i] = []byte("f"), oidBool
			if v {
				values[i] = []byte("t")
			}
		case string:
			values[i], oids[i] = []byte(v), oidUnknown
		case []byte:
			if v == nil {
				v = []byte{}
			}
			values[i], oids[i], formats[i] = v, oidBytea, 1
		default:
			return nil, nil, nil, &backend.Error{Class: backend.ClassInvalid,
				Message: fmt.Sprintf("argument $%d: unsupported type %T", i+1, a)}
		}
	}
	return values, oids, formats, nil
}

func formatFloat(f float64) []byte {
	switch {
	case math.IsNaN(f):
		return []byte("NaN")
	case math.IsInf(f, 1):
		return []byte("Infinity")
	case math.IsInf(f, -1):
		return []byte("-Infinity")
	}
	return strconv.AppendFloat(nil, f, 'g', -1, 64)
}

// convertValue turns one text-format value into the Go value relchain
// returns: integers as int64, floats as float64, bool, bytea as []byte, and
// every other type as the server's text form, which the pinned session
// settings make identical on every node: numeric exactly, timestamps and
// dates in ISO style in UTC, intervals in "postgres" style, json/jsonb,
// uuid, arrays and composites in their text form.
func convertValue(oid uint32, v []byte) (any, error) {
	if v == nil {
		return nil, nil
	}
	switch oid {
	case oidInt2, oidInt4, oidInt8:
		return strconv.ParseInt(string(v), 10, 64)
	case oidFloat4, oidFloat8:
		// extra_float_digits=3 prints the shortest text that reads back
		// exactly; for float4 that text read as float64 is the value a
		// reader of the text would expect (0.1, not 0.10000000149).
		return strconv.ParseFloat(string(v), 64)
	case oidBool:
		return len(v) == 1 && v[0] == 't', nil
	case oidBytea:
		if !bytes.HasPrefix(v, []byte(`\x`)) {
			return nil, fmt.Errorf("bytea not in hex format: %.20q", v)
		}
		out := make([]byte, hex.DecodedLen(len(v)-2))
		_, err := hex.Decode(out, v[2:])
		return out, err
	}
	return string(v), nil
}

// compareRaw orders rows by their values' text forms, column by column,
// NULL first.
func compareRaw(a, b [][]byte) int {
	return sqlstore.CompareRows(a, b, func(v []byte) ([]byte, bool) { return v, v == nil })
}

// stackDepthExceeded is SQLSTATE 54001, statement_too_complex: "stack
// depth limit exceeded".
const stackDepthExceeded = "54001"

// nodeFault reports SQLSTATE classes that describe this node rather than the
// statement: connection problems (08), insufficient resources such as a
// full disk or out of memory (53), operator intervention and cancellation
// (57), system and internal errors (58, XX), serialization failures and
// deadlocks (40, impossible for the lone writer), and lock timeouts
// (55P03). In a block they are returned as ordinary errors, never as a tx
// failure: another node would not fail the same way, and recording the
// failure would make this node diverge. 54 (program limits such as "too
// many columns") stays a tx failure: it is the statement's fault, and its
// limits are PostgreSQL's build constants, the same on every node of the
// network's profile (block_size, max_function_args, max_index_keys: see
// profile.go) — except 54001, stack depth limit exceeded: where it strikes
// depends on max_stack_depth (a superuser's setting per server, database or
// role) and on how much stack each level takes in this build of
// PostgreSQL, so it is a node fault (issue 32, reproduction 3). A tx that
// hits it on every node is quarantined by every node's ProcessProposal
// instead of being recorded. 26000
// and 42P05 are node faults too: only relchain's own prepared block
// statements can raise them (preparedStatementFault).
func nodeFault(code string) bool {
	if code == "55P03" || code == stackDepthExceeded || preparedStatementFault(code) {
		return true
	}
	if len(code) < 2 {
		return true
	}
	switch code[:2] {
	case "08", "40", "53", "57", "58", "XX", "F0":
		return true
	}
	return false
}

// stackDependent reports the one failure outside 54001 whose occurrence
// depends on max_stack_depth: the regex compiler gives up on a pattern
// nested deeper than the stack allows with 2201B "invalid regular
// expression: regular expression is too complex" (measured: a pattern of
// 10,000 nested groups compiles under 7 MB and fails under 2 MB). The
// same text also reports patterns too large for the compiler's fixed
// limits, a deterministic failure that is then a node fault too: such a
// tx is quarantined, never recorded. The regex library's part of the
// message is not translated, whatever lc_messages.
func stackDependent(e *pgconn.PgError) bool {
	return e.Code == "2201B" && strings.Contains(e.Message, "regular expression is too complex")
}

// asBackendError converts a server error in err's chain to a
// *backend.Error, or returns nil.
func asBackendError(err error) *backend.Error {
	if e := backend.AsError(err); e != nil {
		return e
	}
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return nil
	}
	return &backend.Error{Class: backend.ClassOfSQLState(pgErr.Code), SQLState: pgErr.Code, Message: pgErr.Message}
}
