package pggate

import (
	"errors"
	"fmt"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"
)

// Session functions.
//
// Drivers and ORMs ask the server about the session: SQLAlchemy runs
// select current_schema() and select pg_catalog.version() when it
// connects, Django asks version() and current_schema(), test harnesses
// current_database() and pg_backend_pid(). A node's own answers differ
// between nodes (each validator's database has its own name, its roles
// theirs, its backend its pid), so the gate replaces each call, in blocks
// and on the read path alike, by the value every node of the network
// gives:
//
//	current_schema(), current_schema      'public'::name (the search_path every session pins)
//	current_schemas(false)                '{public}'::name[]
//	current_schemas(true)                 '{pg_catalog,public}'::name[]
//	current_database(), current_catalog   'relchain'::name (NetworkDatabase)
//	current_user, session_user, user,
//	current_role                          'relchain'::name (NetworkUser)
//	version()                             Version, the text the wire listener answers for SELECT version()
//	pg_backend_pid()                      0
//	inet_server_addr(), inet_client_addr()  NULL::inet (as PostgreSQL answers over a Unix socket)
//	inet_server_port(), inet_client_port()  NULL::int4
//	pg_is_in_recovery()                   false
//
// On the read path the names of the database and the role
// (current_database(), current_catalog, current_user, session_user, user,
// current_role) stay the node's own: the catalogs a read may join them
// with (information_schema's table_catalog, pg_database, pg_roles) show
// the node's names, and ORMs compare them (GORM's column introspection
// asks WHERE table_catalog = current_database()). A read decides nothing;
// inside a block, where the catalogs are refused, they are the network's.
//
// An output column keeps the name PostgreSQL gives the call. The
// replacement is made in the statement's own text only (what the gate's
// walker visits); in a function or procedure body, evaluated at each call
// with the node's own values, these calls stay refused. Other session
// functions (pg_postmaster_start_time, txid_current, current_setting ...)
// stay refused in blocks.

// current_database() and current_catalog answer NetworkDatabase
// (catalogs.go) in blocks, the name pg_database shows on the read path.

// NetworkUser is the name current_user, session_user, user and
// current_role answer on every node.
const NetworkUser = "relchain"

// Version is version()'s answer: gateway.ServerVersion in the form the
// gateway answers SELECT version() with on a PostgreSQL network (a test in
// package e2e holds the two equal).
const Version = "PostgreSQL 16.0 (relchain) on a relchain network (postgres backend)"

// sessionSite is a session call the gate replaces by value.
type sessionSite struct {
	node  *pg_query.Node
	value *pg_query.Node
}

// constCast is 'text'::pg_catalog.typ (typ[] if array), or NULL::typ for
// null.
func constCast(text string, null bool, typ string, array bool) *pg_query.Node {
	tn := &pg_query.TypeName{
		Names:    []*pg_query.Node{pg_query.MakeStrNode("pg_catalog"), pg_query.MakeStrNode(typ)},
		Typemod:  -1,
		Location: -1,
	}
	if array {
		tn.ArrayBounds = []*pg_query.Node{pg_query.MakeIntNode(-1)}
	}
	arg := pg_query.MakeAConstStrNode(text, -1)
	if null {
		arg = &pg_query.Node{Node: &pg_query.Node_AConst{AConst: &pg_query.A_Const{Isnull: true, Location: -1}}}
	}
	return &pg_query.Node{Node: &pg_query.Node_TypeCast{TypeCast: &pg_query.TypeCast{Arg: arg, TypeName: tn, Location: -1}}}
}

// nodeOwnOnReads are the session values the read path leaves to the
// node: the names of its database and role, which the catalogs a read may
// join them with show (GORM asks information_schema.columns WHERE
// table_catalog = current_database()).
var nodeOwnOnReads = setOf("current_database", "current_catalog", "current_user", "session_user", "user", "current_role")

// sessionFuncs are the session functions without arguments and their
// network-wide values.
var sessionFuncs = map[string]func() *pg_query.Node{
	"current_schema":    func() *pg_query.Node { return constCast("public", false, "name", false) },
	"current_database":  func() *pg_query.Node { return constCast(NetworkDatabase, false, "name", false) },
	"version":           func() *pg_query.Node { return constCast(Version, false, "text", false) },
	"pg_backend_pid":    func() *pg_query.Node { return constCast("0", false, "int4", false) },
	"inet_server_addr":  func() *pg_query.Node { return constCast("", true, "inet", false) },
	"inet_client_addr":  func() *pg_query.Node { return constCast("", true, "inet", false) },
	"inet_server_port":  func() *pg_query.Node { return constCast("", true, "int4", false) },
	"inet_client_port":  func() *pg_query.Node { return constCast("", true, "int4", false) },
	"pg_is_in_recovery": func() *pg_query.Node { return constCast("false", false, "bool", false) },
}

// sessionCall replaces a call of a session function (name, unqualified
// or pg_catalog.) by its network-wide value; handled is false for any
// other function.
func (w *walker) sessionCall(names []string, f *pg_query.FuncCall, wrapper *pg_query.Node) (handled bool, err error) {
	name := names[len(names)-1]
	if len(names) > 2 || (len(names) == 2 && names[0] != "pg_catalog") {
		return false, nil
	}
	value, ok := sessionFuncs[name]
	if !ok && name != "current_schemas" || w.policy == readPolicy && nodeOwnOnReads[name] {
		return false, nil
	}
	what := name + "()"
	if name == "current_schemas" {
		what = "current_schemas(boolean)"
		var b *pg_query.Boolean
		if args := f.GetArgs(); len(args) == 1 {
			b = args[0].GetAConst().GetBoolval()
		}
		if b == nil {
			return true, errors.New("current_schemas is allowed only with a constant argument, as current_schemas(true) or current_schemas(false)")
		}
		schemas := "{public}"
		if b.GetBoolval() {
			schemas = "{pg_catalog,public}"
		}
		value = func() *pg_query.Node { return constCast(schemas, false, "name", true) }
		f = proto.Clone(f).(*pg_query.FuncCall)
		f.Args = nil // checked: the plain-call check below is about the rest
	}
	if !plainCall(f) {
		return true, fmt.Errorf("%s is allowed only as a plain call", what)
	}
	return true, w.sessionValue(what, wrapper, value())
}

// sessionValue records the replacement of a session call (the Node
// wrapper holds it) by value.
func (w *walker) sessionValue(what string, wrapper *pg_query.Node, value *pg_query.Node) error {
	if w.ctx != stmtTop {
		return fmt.Errorf("%s is not allowed in a function or procedure body: it would be evaluated at each call with the node's own value; pass the value as an argument", what)
	}
	if wrapper == nil {
		return fmt.Errorf("%s is not allowed in this position: it cannot be replaced by its network-wide value here", what)
	}
	w.session = append(w.session, sessionSite{node: wrapper, value: value})
	return nil
}

// sessionSQLValue replaces CURRENT_USER, SESSION_USER, USER, CURRENT_ROLE,
// CURRENT_CATALOG and CURRENT_SCHEMA; handled is false for the clock
// values.
func (w *walker) sessionSQLValue(f *pg_query.SQLValueFunction, wrapper *pg_query.Node) (handled bool, err error) {
	name := strings.ToLower(strings.TrimPrefix(f.GetOp().String(), "SVFOP_"))
	if w.policy == readPolicy && nodeOwnOnReads[name] {
		return false, nil
	}
	switch f.GetOp() {
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_USER, pg_query.SQLValueFunctionOp_SVFOP_SESSION_USER,
		pg_query.SQLValueFunctionOp_SVFOP_USER, pg_query.SQLValueFunctionOp_SVFOP_CURRENT_ROLE:
		return true, w.sessionValue(name, wrapper, constCast(NetworkUser, false, "name", false))
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_CATALOG:
		return true, w.sessionValue(name, wrapper, constCast(NetworkDatabase, false, "name", false))
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_SCHEMA:
		return true, w.sessionValue(name, wrapper, constCast("public", false, "name", false))
	}
	return false, nil
}

// replaceSession puts the network-wide values in place of the session
// calls, after the walk (outputColumn names a column by its call first),
// and names those output columns.
func (w *walker) replaceSession() {
	if len(w.session) == 0 {
		return
	}
	for _, s := range w.session {
		s.node.Node = s.value.Node
	}
	for _, r := range w.renames {
		r.target.Name = r.name
	}
}
