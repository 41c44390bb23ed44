package dbrestore

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/registry"
	"github.com/relchain/relchain/dialect"
)

// Portable is a database as another engine takes it (issue 37): its
// replicated tables as PostgreSQL's SQL (the engine's dump), relchain's
// system state and the block it was committed as. Only a database whose
// last block has protocol version 5's AppHash, the same on every engine,
// can be carried so.
type Portable struct {
	State  backend.State
	System map[string][]byte
	Dump   string
}

// ReadPortable reads the quiescent database s of driver d (a stopped
// node's, a received snapshot's file) as Portable. Its contents must
// reproduce the AppHash it records (app.VerifyState), and that AppHash
// must be appHash when appHash is not nil; it must be canonical.
func ReadPortable(ctx context.Context, d registry.Driver, s registry.Spec, appHash []byte) (Portable, error) {
	if d.Dump == nil {
		return Portable{}, fmt.Errorf("the %s backend has no dump", d.Name)
	}
	be, err := d.Open(ctx, s)
	if err != nil {
		return Portable{}, fmt.Errorf("open the %s database: %w", d.Name, err)
	}
	p, err := readVerified(ctx, be, appHash)
	if cerr := be.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("close the %s database: %w", d.Name, cerr)
	}
	if err != nil {
		return p, err
	}
	var dump bytes.Buffer
	h, err := d.Dump(ctx, s, &dump)
	switch {
	case err != nil:
		return p, fmt.Errorf("dump the %s database: %w", d.Name, err)
	case h != p.State.Height:
		return p, fmt.Errorf("the %s database moved from height %d to %d while it was read", d.Name, p.State.Height, h)
	}
	p.Dump = dump.String()
	return p, nil
}

// readVerified is the state and system state of be, verified.
func readVerified(ctx context.Context, be backend.Backend, appHash []byte) (Portable, error) {
	st, err := app.VerifyState(ctx, be)
	switch {
	case err != nil:
		return Portable{}, err
	case appHash != nil && !bytes.Equal(st.AppHash, appHash):
		return Portable{}, fmt.Errorf("its AppHash %X is not the chain's %X at height %d", st.AppHash, appHash, st.Height)
	}
	system, err := be.LoadSystem(ctx)
	if err != nil {
		return Portable{}, err
	}
	if !app.CanonicalInputs(system) {
		return Portable{}, fmt.Errorf("its last block (height %d) has an AppHash of its engine's own (protocol version before 5): no other engine can reproduce it", st.Height)
	}
	return Portable{State: st, System: system}, nil
}

// Fill writes p into be, an empty database of any engine speaking
// PostgreSQL's SQL, in one block committed as p.State, and checks that be
// reproduces p's AppHash at p's height. It returns the number of
// statements run.
func Fill(ctx context.Context, be backend.Backend, p Portable) (int, error) {
	if cur, err := be.LoadState(ctx); err != nil || cur.Height != 0 {
		return 0, fmt.Errorf("the new database must be empty (it holds height %d; %v)", cur.Height, err)
	}
	stmts, err := dumpStatements(p.Dump, !be.Capabilities().TransactionalDDL)
	if err != nil {
		return 0, err
	}
	blk, err := be.Begin(ctx)
	if err != nil {
		return 0, fmt.Errorf("begin: %w", err)
	}
	if err := fillBlock(ctx, blk, stmts, p); err != nil {
		_ = blk.Rollback(context.WithoutCancel(ctx))
		return 0, err
	}
	got, err := app.VerifyState(ctx, be)
	if err != nil {
		return 0, fmt.Errorf("the new database does not reproduce the AppHash: %w", err)
	}
	if got.Height != p.State.Height || !bytes.Equal(got.AppHash, p.State.AppHash) {
		return 0, fmt.Errorf("the new database records height %d, AppHash %X; the source's is %d, %X", got.Height, got.AppHash, p.State.Height, p.State.AppHash)
	}
	return len(stmts), nil
}

// fillBlock runs stmts and saves p's system state in blk, and commits it
// as p's block.
func fillBlock(ctx context.Context, blk backend.Block, stmts []string, p Portable) error {
	for _, s := range stmts {
		if _, err := blk.Exec(ctx, s, nil); err != nil {
			return fmt.Errorf("run %.200q: %w", s, err)
		}
	}
	if err := blk.SaveSystem(ctx, p.System); err != nil {
		return fmt.Errorf("system state: %w", err)
	}
	return backend.CommitDigested(ctx, blk, p.State)
}

// dumpStatements splits a dump (relchain's own text, PostgreSQL's SQL)
// into its statements, without the session's and transaction's own
// (SET, BEGIN, COMMIT): the block is the transaction. ddlFirst (an engine
// that commits DDL at once, MariaDB, and takes it only before a block's
// other changes): its CREATE TABLE and CREATE INDEX statements come
// first, in the dump's order; elsewhere the dump's order stands (indexes
// built after the rows).
func dumpStatements(dump string, ddlFirst bool) ([]string, error) {
	all, err := pg_query.SplitWithScanner(dump, true)
	if err != nil {
		return nil, fmt.Errorf("split the dump: %w", err)
	}
	var ddl, out, setvals []string
	for _, s := range all {
		s = strings.TrimSpace(stripComments(s))
		u := strings.ToUpper(s)
		switch {
		case s == "" || u == "BEGIN" || u == "COMMIT" || strings.HasPrefix(u, "SET "):
		case strings.HasPrefix(u, "CREATE SEQUENCE ") || (strings.HasPrefix(u, "ALTER SEQUENCE ") && strings.Contains(u, " OWNED BY ")):
			// A serial's sequence: the serial column below makes it.
		case strings.HasPrefix(u, "SELECT PG_CATALOG.SETVAL("):
			// A sequence's value: setval as a statement of a block may
			// name it (no catalog inside a block).
			// Last: a dump may set it before its serial column's table
			// (the rows' explicit ids never move a sequence).
			setvals = append(setvals, "SELECT setval("+s[len("SELECT pg_catalog.setval("):])
		case ddlFirst && (strings.HasPrefix(u, "CREATE TABLE ") || strings.HasPrefix(u, "CREATE INDEX ") || strings.HasPrefix(u, "CREATE UNIQUE INDEX ")):
			ddl = append(ddl, serialColumns.ReplaceAllStringFunc(s, serialColumn))
		default:
			out = append(out, serialColumns.ReplaceAllStringFunc(s, serialColumn))
		}
	}
	return append(append(ddl, out...), setvals...), nil
}

// serialColumns finds, in a dump's CREATE TABLE, a column of an integer
// type whose default is its sequence's nextval: a serial column as
// PostgreSQL prints it, which relchain's gates accept only as serial
// (no statement may name a regclass).
var serialColumns = regexp.MustCompile(`\b(smallint|integer|bigint) DEFAULT nextval\('(?:[^']|'')*'::regclass\)`)

// serialColumn is the serial pseudo-type of a serialColumns match.
func serialColumn(m string) string {
	switch {
	case strings.HasPrefix(m, "smallint"):
		return "smallserial"
	case strings.HasPrefix(m, "bigint"):
		return "bigserial"
	}
	return "serial"
}

// stripComments drops whole-line -- comments (the dump's header).
func stripComments(s string) string {
	lines := strings.Split(s, "\n")
	kept := lines[:0]
	for _, l := range lines {
		if !strings.HasPrefix(strings.TrimSpace(l), "--") {
			kept = append(kept, l)
		}
	}
	return strings.Join(kept, "\n")
}

// CrossEngine is a Restorer that also restores a checkpoint of another
// engine of a network over several engines (state sync from a peer on
// another engine): a server database's, from a file database's
// checkpoint.
type CrossEngine interface {
	Restorer
	// StageForeign restores cp, a checkpoint of the engine kind, beside
	// the live database as Stage does: cp must reproduce appHash (checked
	// before anything is written), and so must the restored database.
	StageForeign(ctx context.Context, kind string, cp backend.Checkpoint, appHash []byte) error
}

// Foreign is r as a CrossEngine, if a node of the network of params may
// restore a checkpoint of engine kind with it: the network runs over
// several engines, kind among them, and the checkpoint is a file
// database's (read where it lies, in PostgreSQL's SQL) going into a server
// that makes empty databases.
func Foreign(r Restorer, params app.Params, kind string) (CrossEngine, bool) {
	sr, ok := r.(*serverRestorer)
	if !ok || sr.ops.Create == nil || !params.Mixed() || !slices.Contains(params.Backends, kind) {
		return nil, false
	}
	d, err := registry.Lookup(kind)
	if err != nil || d.Server || d.Dump == nil {
		return nil, false
	}
	return sr, true
}

func (r *serverRestorer) StageForeign(ctx context.Context, kind string, cp backend.Checkpoint, appHash []byte) error {
	d, err := registry.Lookup(kind)
	if err != nil {
		return err
	}
	s := r.live.OnEngine(kind)
	s.DSN = cp.Path
	p, err := ReadPortable(ctx, d, s, appHash)
	if err != nil {
		return fmt.Errorf("the %s checkpoint: %w", kind, err)
	}
	if p.State.Height != cp.Height {
		return fmt.Errorf("the %s checkpoint holds height %d, its name says %d", kind, p.State.Height, cp.Height)
	}
	name, err := r.ops.DatabaseName(r.dsn)
	if err != nil {
		return err
	}
	r.staged = name + cmp.Or(r.suffix, "_recover")
	stagedDSN, err := r.ops.Create(ctx, r.dsn, r.staged)
	if err != nil {
		return err
	}
	if err := r.fillStaged(ctx, stagedDSN, p, cp, appHash); err != nil {
		r.Discard(ctx)
		return fmt.Errorf("restore the %s checkpoint of height %d: %w", kind, cp.Height, err)
	}
	return nil
}

// fillStaged writes p into the staged database and verifies it.
func (r *serverRestorer) fillStaged(ctx context.Context, dsn string, p Portable, cp backend.Checkpoint, appHash []byte) error {
	be, err := r.open(ctx, dsn)
	if err != nil {
		return err
	}
	if _, err = Fill(ctx, be, p); err == nil {
		r.state, err = verifyStaged(ctx, be, cp, appHash)
	}
	if cerr := be.Close(); err == nil {
		err = cerr
	}
	return err
}

// Exporter is a Restorer that also writes its engine's checkpoint as a
// checkpoint of SQLite speaking PostgreSQL's SQL, which every engine of a
// network over several engines restores (snapshot.PortableFormat).
type Exporter interface {
	// ExportSQLite restores cp into a scratch database beside the live
	// one, verifies it (its AppHash, from its rows), writes it into a new
	// SQLite database that must reproduce that AppHash, takes that
	// database's checkpoint into dir and drops the scratch database.
	ExportSQLite(ctx context.Context, cp backend.Checkpoint, dir string) (backend.Checkpoint, error)
}

// Export is r as an Exporter, if it can export: a server database whose
// driver dumps PostgreSQL's SQL, on a network speaking it.
func Export(r Restorer) (Exporter, bool) {
	sr, ok := r.(*serverRestorer)
	if !ok || sr.driver.Dump == nil || sr.live.SQLDialect != dialect.SQLPostgres {
		return nil, false
	}
	return sr, true
}

func (r *serverRestorer) ExportSQLite(ctx context.Context, cp backend.Checkpoint, dir string) (backend.Checkpoint, error) {
	name, err := r.ops.DatabaseName(r.dsn)
	if err != nil {
		return backend.Checkpoint{}, err
	}
	scratch := name + r.suffix + "_portable" // Scratch's restorer (relchain backup) apart from the node's
	dsn, err := r.ops.Restore(ctx, r.dsn, cp, scratch)
	if err != nil {
		return backend.Checkpoint{}, err
	}
	defer r.ops.Drop(context.WithoutCancel(ctx), r.dsn, scratch)
	p, err := ReadPortable(ctx, r.driver, registry.Spec{DSN: dsn, UnsafeSuperuser: r.live.UnsafeSuperuser,
		SQLDialect: r.live.SQLDialect, SQLDialectVersion: r.live.SQLDialectVersion}, nil)
	if err != nil {
		return backend.Checkpoint{}, fmt.Errorf("checkpoint %d: %w", cp.Height, err)
	}
	if p.State.Height != cp.Height {
		return backend.Checkpoint{}, fmt.Errorf("checkpoint %d holds height %d", cp.Height, p.State.Height)
	}
	return writeSQLite(ctx, p, dir, r.live)
}

// writeSQLite fills a new SQLite database speaking live's SQL dialect
// (at SQLite's translation version of the network) with p and takes its
// checkpoint into dir.
func writeSQLite(ctx context.Context, p Portable, dir string, live registry.Spec) (backend.Checkpoint, error) {
	d, err := registry.Lookup(dialect.Portable)
	if err != nil {
		return backend.Checkpoint{}, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return backend.Checkpoint{}, err
	}
	work, err := os.MkdirTemp(dir, ".export-")
	if err != nil {
		return backend.Checkpoint{}, err
	}
	defer os.RemoveAll(work)
	s := live.OnEngine(dialect.Portable)
	s.DSN = filepath.Join(work, "portable.db")
	be, err := d.Open(ctx, s)
	if err != nil {
		return backend.Checkpoint{}, err
	}
	_, err = Fill(ctx, be, p)
	if cerr := be.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return backend.Checkpoint{}, fmt.Errorf("the SQLite copy of height %d: %w", p.State.Height, err)
	}
	return d.CheckpointNow(ctx, s, dir)
}
