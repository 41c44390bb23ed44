package backend

import (
	"context"

	"github.com/relchain/relchain/sqlcheck"
)

// Gate is a dialect's determinism and safety gate: the seam through which
// the executor asks whether a statement may enter the chain and what it
// does (package sqlcheck's Analysis), before it runs. Each backend brings
// its own (Backend.Gate): PostgreSQL's and MySQL's parse the text
// (backend/postgres/pggate, backend/mysql/mysqlgate); SQLite's judges the
// statement SQLite compiles, through its authorizer, so it needs the
// backend's connections. The storage interfaces (Backend, Block) carry no
// verdicts; a backend's Exec still refuses what its gate refuses, as a
// backstop.
//
// Gate methods may be called concurrently with each other and with an open
// Block.
type Gate interface {
	// Analyze is CheckTx's verdict on one statement text, without executing
	// it, against committed state: sql must be exactly one statement the
	// backend can parse and its gate accepts. It returns an *Error with
	// ClassSyntax (cannot be parsed), ClassInvalid (several statements,
	// empty text) or ClassPermission (the gate refuses it; the message names
	// the construct). Errors that depend on the schema (a missing table, say)
	// are no verdict: a tx earlier in the same block may create the table;
	// Analyze then returns what it could learn and nil. The block decides
	// (AnalyzeInBlock).
	Analyze(ctx context.Context, sql string) (sqlcheck.Analysis, error)

	// AnalyzeInBlock is the verdict on one statement before it runs in b,
	// on the block's own state (a table created earlier in the block
	// exists): the gate's refusal as an *Error with ClassPermission, any
	// other failure to compile as the matching class, or what the
	// statement does. b must be a Block of the same backend.
	AnalyzeInBlock(ctx context.Context, b Block, sql string) (sqlcheck.Analysis, error)

	// TableName puts a table name a client gives (a grant's table) in the
	// form Analysis reports tables: the dialect's case folding, without
	// the default schema's qualifier.
	TableName(name string) string
}

// Capabilities is what the layers above a backend need to know about its
// database, in place of its name.
type Capabilities struct {
	// TransactionalDDL says DDL rolls back with the block's db-transaction.
	// When it is false (MySQL and MariaDB commit DDL implicitly; see
	// Block), a bc-transaction with DDL must be one statement alone in its
	// block, and a proposal holding DDL is not executed before it is
	// decided.
	TransactionalDDL bool
	// SQLDialect names the SQL the backend takes when it is not the
	// database's own (Backend.Dialect): "postgres" for a SQLite backend
	// that translates PostgreSQL's SQL. Empty: the database's own.
	SQLDialect string
}

// TextGate is the Gate of a backend whose verdicts depend on the text
// alone (PostgreSQL, MySQL: the gate parses the statement, whatever the
// state): AnalyzeInBlock gives Analyze's verdict; errors that depend on the
// schema surface at Exec, with their class.
type TextGate struct {
	// Verdict is the gate's verdict on one statement text (Gate.Analyze).
	Verdict func(ctx context.Context, sql string) (sqlcheck.Analysis, error)
	// InBlock, if set, is the verdict in a block (AnalyzeInBlock): the
	// text's, refined by the rules of the block's protocol version.
	InBlock func(ctx context.Context, blk Block, sql string) (sqlcheck.Analysis, error)
	// Fold is Gate.TableName.
	Fold func(name string) string
	// Warm, if set, computes the verdict on a text and keeps it for the
	// next Analyze or AnalyzeInBlock of that text (the executor's pool
	// calls it for the statements of a block's txs the node never saw,
	// ahead of the block's loop). Set it only where the verdict is a pure
	// function of the text the gate caches: calling it changes when the
	// work is done, never a verdict.
	Warm func(sql string)
}

// Analyze implements Gate.
func (g *TextGate) Analyze(ctx context.Context, sql string) (sqlcheck.Analysis, error) {
	return g.Verdict(ctx, sql)
}

// AnalyzeInBlock implements Gate: the verdict does not depend on the
// block's state (InBlock may apply its protocol version's rules).
func (g *TextGate) AnalyzeInBlock(ctx context.Context, blk Block, sql string) (sqlcheck.Analysis, error) {
	if g.InBlock != nil {
		return g.InBlock(ctx, blk, sql)
	}
	return g.Verdict(ctx, sql)
}

// TableName implements Gate.
func (g *TextGate) TableName(name string) string { return g.Fold(name) }
