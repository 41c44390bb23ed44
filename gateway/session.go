package gateway

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/pgwire"
	"github.com/relchain/relchain/txn"
)

// maxDescribed bounds a session's cache of statement descriptions.
const maxDescribed = 256

// session is one client connection's state: who it is, its settings,
// the height its reads must reach, and its open transaction.
type session struct {
	g        *Gateway
	user     *User
	settings map[string]string // SET values and startup parameters, by lower-case name

	minHeight  int64  // relchain.min_height
	lastCommit int64  // height of the session's last commit (read-your-writes)
	crossCheck bool   // relchain.cross_check
	copySplit  bool   // relchain.copy_split_transaction
	guarantee  string // relchain.read_guarantee: the last verified read's

	timeout         int64 // statement_timeout in milliseconds; 0: none
	defaultReadOnly bool  // default_transaction_read_only

	tx        *transaction
	described map[string]pgwire.Description // by the client's SQL
	kinds     map[string]kind               // classify's verdicts, by the client's SQL
	tables    map[string]map[string]string  // column types by table (params.go)
}

// transaction is an explicit transaction in progress: its statements so
// far with what the client observed of each (their first rehearsal).
type transaction struct {
	readOnly bool
	failed   bool
	writes   bool
	ddl      bool
	stmts    []txn.Statement
	seen     []txn.Observation

	saved *savedSettings  // the session's settings at BEGIN: ROLLBACK restores them
	local map[string]bool // names SET LOCAL changed: restored at the end either way

	savepoints []savepoint // open savepoints, oldest first (savepoint.go)

	// height is the transaction's snapshot height: the session's read
	// height at its first statement (pinned then); catalog reads answered
	// on the read path (readInTransaction) are served at least there.
	height int64
	pinned bool
}

func newSession(g *Gateway, user *User, startup map[string]string) *session {
	s := &session{g: g, user: user, settings: map[string]string{}, described: map[string]pgwire.Description{},
		kinds: map[string]kind{}, tables: map[string]map[string]string{}}
	for _, k := range slices.Sorted(maps.Keys(startup)) {
		if k != "user" && k != "database" && k != "options" {
			// A startup value the gateway cannot honour (or does not know)
			// is dropped, not claimed: SHOW and ParameterStatus tell the
			// value in effect, which clients read.
			_ = s.assign(strings.ToLower(k), startup[k])
		}
	}
	for _, kv := range startupOptions(startup["options"]) {
		_ = s.assign(strings.ToLower(kv[0]), kv[1])
	}
	return s
}

// startupOptions reads the settings of the options startup parameter
// (libpq's PGOPTIONS) as PostgreSQL does: arguments separated by spaces,
// a backslash keeping the next character (an escaped space), each
// "-c name=value", "-cname=value" or "--name=value"; any other argument
// (a server command-line switch) is ignored.
func startupOptions(v string) [][2]string {
	var args []string
	var cur strings.Builder
	escaped, inArg := false, false
	for _, r := range v {
		switch {
		case escaped:
			cur.WriteRune(r)
			escaped, inArg = false, true
		case r == '\\':
			escaped, inArg = true, true
		case r == ' ' || r == '\t' || r == '\n' || r == '\r':
			if inArg {
				args = append(args, cur.String())
				cur.Reset()
				inArg = false
			}
		default:
			cur.WriteRune(r)
			inArg = true
		}
	}
	if inArg {
		args = append(args, cur.String())
	}
	var out [][2]string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-c" && i+1 < len(args):
			i++
			a = args[i]
		case strings.HasPrefix(a, "-c"):
			a = a[2:]
		case strings.HasPrefix(a, "--"):
			a = a[2:]
		default:
			continue
		}
		if name, value, ok := strings.Cut(a, "="); ok && name != "" {
			out = append(out, [2]string{strings.ReplaceAll(name, "-", "_"), value})
		}
	}
	return out
}

// Split cuts a simple query into statements.
func (s *session) Split(sql string) ([]string, error) {
	stmts, err := split(sql, s.g.wire.DollarQuotes)
	if err != nil {
		return nil, &pgwire.Error{Code: stateSyntax, Message: err.Error()}
	}
	return stmts, nil
}

// TxStatus is ReadyForQuery's status byte.
func (s *session) TxStatus() byte {
	switch {
	case s.tx == nil:
		return 'I'
	case s.tx.failed:
		return 'E'
	}
	return 'T'
}

// Close releases nothing: a session holds no lock and no node resource.
func (s *session) Close() {}

// Execute runs one statement.
// statement_timeout bounds the wait for its answer: 57014 when it
// expires (a write cut short may still commit; its error says so).
func (s *session) Execute(ctx context.Context, sql string, params []any) (*pgwire.Result, error) {
	res, err := s.executeTimed(ctx, sql, params)
	if err != nil && s.tx != nil {
		s.tx.failed = true // PostgreSQL's rule: any error aborts the transaction block
	}
	return res, err
}

func (s *session) executeTimed(ctx context.Context, sql string, params []any) (*pgwire.Result, error) {
	if s.timeout <= 0 {
		return s.execute(ctx, sql, params)
	}
	ctx, cancel := context.WithTimeoutCause(ctx, time.Duration(s.timeout)*time.Millisecond, errStatementTimeout)
	defer cancel()
	res, err := s.execute(ctx, sql, params)
	var pe *pgwire.Error
	if err != nil && errors.Is(context.Cause(ctx), errStatementTimeout) && errors.As(err, &pe) && (pe.Code == stateQueryCanceled || pe.Code == stateConnFailure) {
		// The node client may not wrap the context's error: the cause decides.
		pe.Code, pe.Detail, pe.Message = stateQueryCanceled, pe.Message, "canceling statement due to statement timeout"
	}
	return res, err
}

// errStatementTimeout is the cause of a context statement_timeout ended.
var errStatementTimeout = errors.New("statement timeout")

func (s *session) execute(ctx context.Context, sql string, params []any) (*pgwire.Result, error) {
	k := s.classify(sql)
	switch k {
	case kindBegin:
		return s.begin(sql)
	case kindCommit:
		tx := s.tx
		res, err := s.commit(ctx)
		s.endSettings(tx, err == nil && res.Tag == "COMMIT")
		return res, err
	case kindRollback:
		s.endSettings(s.tx, false)
		s.tx = nil
		return &pgwire.Result{Tag: "ROLLBACK"}, nil
	case kindSavepoint:
		return s.setSavepoint(sql)
	case kindRelease:
		return s.releaseSavepoint(sql)
	case kindRollbackTo:
		return s.rollbackToSavepoint(sql)
	}
	if (k == kindSet || k == kindShow || k == kindNoop || k == kindVacuum) && s.tx != nil && s.tx.failed {
		return nil, &pgwire.Error{Code: stateInFailedTx, Message: "current transaction is aborted, commands ignored until end of transaction block"}
	}
	switch k {
	case kindSet:
		return s.set(sql)
	case kindShow:
		return s.show(sql)
	case kindVersion:
		return &pgwire.Result{Columns: []pgwire.Column{{Name: "version", OID: 25}}, Rows: [][]any{{s.g.versionString()}}}, nil
	case kindNoop:
		return s.discard(sql)
	case kindVacuum:
		return maintenance(sql, s.tx != nil)
	case kindRefused:
		return nil, refusedStatement(sql)
	case kindCopy:
		return s.copyStatement(ctx, sql)
	}
	stmt, err := s.statementOf(sql, params)
	if err != nil {
		return nil, err
	}
	if k == kindSetConstraints && s.tx == nil {
		return s.setConstraintsOutside(ctx, stmt)
	}
	if s.tx != nil {
		return s.inTransaction(ctx, sql, stmt, k)
	}
	if k == kindRead {
		return s.read(ctx, sql, stmt)
	}
	if s.defaultReadOnly {
		return nil, &pgwire.Error{Code: stateReadOnlyTx, Message: "cannot execute " + words(sql, 1)[0] + " in a read-only transaction",
			Hint: "default_transaction_read_only is on for this session."}
	}
	return s.write(ctx, sql, stmt)
}

// classify is classify(sql), remembered for up to maxDescribed texts: a
// prepared statement is executed many times.
func (s *session) classify(sql string) kind {
	if k, ok := s.kinds[sql]; ok {
		return k
	}
	k := classify(sql)
	if len(s.kinds) < maxDescribed {
		s.kinds[sql] = k
	}
	return k
}

// statementOf is what the node runs for the client's sql and decoded
// parameters: placeholders in the backend's style, arguments in its
// order, dates as dates.
func (s *session) statementOf(sql string, params []any) (txn.Statement, error) {
	nodeSQL, order := placeholders(sql, s.g.wire.Placeholders)
	declared := s.described[sql].Params
	args := make([]txn.Arg, len(params))
	for i, p := range params {
		var oid uint32
		if i < len(declared) {
			oid = declared[i]
		}
		var err error
		if args[i], err = paramArg(p, oid, s.g.wire.NativeTypes); err != nil {
			var pe *pgwire.Error
			if errors.As(err, &pe) {
				return txn.Statement{}, pe
			}
			return txn.Statement{}, &pgwire.Error{Code: stateInvalidValue, Message: fmt.Sprintf("parameter $%d: %v", i+1, err)}
		}
	}
	if order == nil {
		return txn.Statement{SQL: nodeSQL, Args: args}, nil
	}
	ordered := make([]txn.Arg, len(order))
	for k, n := range order {
		if n < 1 || n > len(args) {
			return txn.Statement{}, &pgwire.Error{Code: "42P02", Message: fmt.Sprintf("there is no parameter $%d", n)}
		}
		ordered[k] = args[n-1]
	}
	return txn.Statement{SQL: nodeSQL, Args: ordered}, nil
}

// discard answers DISCARD and DEALLOCATE as PostgreSQL does. The
// connection's prepared statements are the extended protocol's (SQL
// PREPARE is refused): DEALLOCATE removes them (pgwire, Result.Deallocate),
// DISCARD ALL removes them, closes the portals and returns every setting
// to its default (the session holds no plans, temporary tables or
// sequences of its own).
func (s *session) discard(sql string) (*pgwire.Result, error) {
	w := words(sql, 3)
	if w[0] == "DEALLOCATE" {
		toks, err := savepointTokens(sql)
		if err != nil {
			return nil, err
		}
		if len(toks) == 3 && strings.EqualFold(toks[1], "PREPARE") {
			toks = append(toks[:1], toks[2:]...)
		}
		if len(toks) != 2 {
			return nil, syntaxError(sql)
		}
		if strings.EqualFold(toks[1], "ALL") {
			return &pgwire.Result{Tag: "DEALLOCATE ALL", DeallocateAll: true}, nil
		}
		name := identifier(toks[1])
		if name == "" {
			return nil, &pgwire.Error{Code: stateSyntax, Message: "zero-length delimited identifier"}
		}
		return &pgwire.Result{Tag: "DEALLOCATE", Deallocate: name}, nil
	}
	what := ""
	if len(w) > 1 {
		what = w[1]
	}
	switch what {
	case "ALL":
		if s.tx != nil {
			return nil, &pgwire.Error{Code: stateActiveTx, Message: "DISCARD ALL cannot run inside a transaction block"}
		}
		s.resetAll()
		return &pgwire.Result{Tag: "DISCARD ALL", DeallocateAll: true, ClosePortals: true}, nil
	case "PLANS", "SEQUENCES", "TEMP":
		return &pgwire.Result{Tag: "DISCARD " + what}, nil
	case "TEMPORARY":
		return &pgwire.Result{Tag: "DISCARD TEMP"}, nil
	}
	return nil, &pgwire.Error{Code: stateSyntax, Message: fmt.Sprintf("cannot read %q: want DISCARD ALL, PLANS, SEQUENCES or TEMP", sql)}
}

// refusedStatement explains a statement the gateway does not carry out.
func refusedStatement(sql string) *pgwire.Error {
	w := words(sql, 1)
	switch w[0] {
	case "PREPARE", "EXECUTE", "DEALLOCATE":
		return refused("SQL-level %s is not supported: use the extended query protocol (your driver's prepared statements)", w[0])
	}
	return refused("%s is not supported by the relchain gateway", w[0])
}

// read runs a read outside a transaction on committed state, at a height
// no lower than the session's last commit and relchain.min_height.
func (s *session) read(ctx context.Context, sql string, stmt txn.Statement) (*pgwire.Result, error) {
	return s.readAt(ctx, sql, stmt, max(s.minHeight, s.lastCommit), s.crossCheck)
}

// readAt reads on committed state at a height of at least h, on one node
// or, crossCheck, on every node; under a verifying gateway (relchain
// proxy) a read outside a transaction is verified instead (verified.go).
func (s *session) readAt(ctx context.Context, sql string, stmt txn.Statement, h int64, crossCheck bool) (*pgwire.Result, error) {
	args := make([]any, len(stmt.Args))
	for i, a := range stmt.Args {
		v, err := queryArg(a)
		if err != nil {
			return nil, err
		}
		args[i] = v
	}
	var resp *api.QueryResponse
	var notices []string
	var err error
	switch {
	case s.g.verifier != nil && s.tx == nil:
		resp, notices, err = s.verifiedRead(ctx, Read{ClientSQL: sql, SQL: stmt.SQL, Args: args}, h)
	case crossCheck:
		resp, err = s.g.nodes.QueryAll(ctx, h, stmt.SQL, args)
	default:
		resp, err = s.g.nodes.Query(ctx, h, stmt.SQL, args)
		if s.g.verifier != nil {
			notices = []string{"relchain: " + unverifiedInTransaction}
		}
	}
	var pe *pgwire.Error
	if errors.As(err, &pe) {
		return nil, pe
	} else if err != nil {
		return nil, s.g.readError(sql, err)
	}
	cols := s.columns(sql, resp.Columns, resp.Types, resp.Typmods)
	if err := wireRows(cols, resp.Rows); err != nil {
		return nil, &pgwire.Error{Code: stateInternal, Message: err.Error()}
	}
	return &pgwire.Result{Columns: cols, Rows: resp.Rows, Tag: fmt.Sprintf("SELECT %d", len(resp.Rows)), Notices: notices}, nil
}

// write commits one statement as its own bc-transaction.
func (s *session) write(ctx context.Context, sql string, stmt txn.Statement) (*pgwire.Result, error) {
	res, err := s.g.nodes.Commit(ctx, s.user.Key, []txn.Statement{stmt}, nil)
	if err != nil {
		return nil, writeError(err)
	}
	s.committed(res.Height, isDDL(sql))
	if !res.OK() {
		return nil, txFailure(res)
	}
	if len(res.Results) != 1 {
		return nil, &pgwire.Error{Code: stateInternal, Message: fmt.Sprintf("the chain returned %d results for one statement", len(res.Results))}
	}
	r := res.Results[0]
	return s.result(ctx, sql, r.Columns, r.Rows, r.RowsAffected)
}

// committed notes a commit at height: later reads wait for it; a schema
// change makes the session's descriptions stale.
func (s *session) committed(height int64, ddl bool) {
	s.lastCommit = max(s.lastCommit, height)
	if ddl {
		clear(s.described)
		clear(s.tables)
	}
}

func isDDL(sql string) bool {
	w := words(sql, 1)
	return len(w) == 1 && (w[0] == "CREATE" || w[0] == "ALTER" || w[0] == "DROP")
}

// result builds a statement's reply from the chain's or a rehearsal's
// results; returned columns get their types from a description.
func (s *session) result(ctx context.Context, sql string, names []string, rows [][]any, affected int64) (*pgwire.Result, error) {
	res := &pgwire.Result{Tag: commandTag(sql, affected, len(rows))}
	if len(names) == 0 {
		return res, nil
	}
	res.Columns = s.columns(sql, names, nil, nil)
	if _, ok := s.described[sql]; !ok {
		if d, err := s.describeNode(ctx, sql, nil); err == nil && len(d.Columns) == len(names) {
			res.Columns = d.Columns
		}
	}
	if err := wireRows(res.Columns, rows); err != nil {
		return nil, &pgwire.Error{Code: stateInternal, Message: err.Error()}
	}
	res.Rows = rows
	return res, nil
}

// columns are a result's wire columns: the statement's description when
// the client asked for one (the types it was promised), else the types
// the node reported.
func (s *session) columns(sql string, names, types []string, typmods []int32) []pgwire.Column {
	if d, ok := s.described[sql]; ok && len(d.Columns) == len(names) {
		return d.Columns
	}
	return wireColumns(names, types, typmods, s.nativeTypes(sql))
}

// nativeTypes says a result's values are PostgreSQL's own text: on a
// network whose database gives them (dialect.Wire.NativeTypes), and for a
// catalog query on any network that answers PostgreSQL's catalogs (the
// emulated catalog's arrays, name[] or oid[], are PostgreSQL's text), so
// that a client reads them as arrays.
func (s *session) nativeTypes(sql string) bool {
	if s.g.wire.NativeTypes {
		return true
	}
	return s.g.wire.PGCatalog && catalogQuery.MatchString(sql) && s.g.classifier().CatalogOnly(sql)
}
