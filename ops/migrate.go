package ops

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/cometbft/cometbft/types"
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/node"
)

// MigrateOptions name the database a validator moves to.
type MigrateOptions struct {
	// ToBackend is the new engine, one the genesis' backends list.
	ToBackend string
	// DSN is the new database: a server's administrator DSN (the node's
	// least-privilege roles are made from it, as relchain init does), or
	// for SQLite the file, relative to the node home (default
	// data/relchain.db; it must not hold a database yet).
	DSN string
}

// MigrateReport says what Migrate did.
type MigrateReport struct {
	From, To   string
	Height     int64
	AppHash    string
	Statements int
}

// Migrate moves a stopped validator of a network over several engines to
// another engine (issue 37) without a new genesis: it checks the node's
// database against its AppHash, copies its replicated tables as
// PostgreSQL's SQL (the source's dump), its sequences and relchain's
// system state into the new, empty database in one block, checks that the
// new database gives the same AppHash at the same height (protocol
// version 5's AppHash is the same on every engine), and only then points
// relchain.toml at it. The old database is left as it was. CometBFT's
// state is unchanged: the node starts again at the same height.
func Migrate(ctx context.Context, home string, o MigrateOptions) (MigrateReport, error) {
	cc, rc, err := node.LoadConfig(home)
	if err != nil {
		return MigrateReport{}, err
	}
	r := MigrateReport{From: rc.Backend.Kind, To: o.ToBackend}
	if err := checkMigration(cc.GenesisFile(), rc, o); err != nil {
		return r, err
	}
	dump, st, system, err := readSource(ctx, home, rc)
	if err != nil {
		return r, err
	}
	r.Height, r.AppHash = st.Height, fmt.Sprintf("%X", st.AppHash)
	target := rc
	target.Backend = node.BackendConfig{Kind: o.ToBackend, DSN: o.DSN}
	if err := node.PrepareBackend(ctx, &target.Backend); err != nil {
		return r, fmt.Errorf("migrate: prepare the new database: %w", err)
	}
	if r.Statements, err = writeTarget(ctx, home, target, dump, st, system); err != nil {
		return r, err
	}
	if err := node.SaveConfig(home, cc, target); err != nil {
		return r, fmt.Errorf("migrate: the new database holds the node's state, but relchain.toml could not point at it: %w", err)
	}
	return r, nil
}

// checkMigration refuses a move the genesis does not allow.
func checkMigration(genesisFile string, rc node.Config, o MigrateOptions) error {
	gen, err := types.GenesisDocFromFile(genesisFile)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	params, err := app.ParseParams(gen.AppState)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	switch {
	case o.ToBackend == rc.Backend.Kind:
		return fmt.Errorf("migrate: the node already runs %s", o.ToBackend)
	case !params.Mixed() || !slices.Contains(params.Backends, o.ToBackend):
		return fmt.Errorf("migrate: the genesis lists the engines %v; a validator can only move to one of them (docs/mixed-networks.md)", params.Engines())
	}
	return nil
}

// readSource checks the node's database against its AppHash, which must
// be canonical, and reads its dump, state and system state, refusing a
// database that changed meanwhile (a running node).
func readSource(ctx context.Context, home string, rc node.Config) (*bytes.Buffer, backend.State, map[string][]byte, error) {
	be, err := node.OpenBackend(ctx, home, rc)
	if err != nil {
		return nil, backend.State{}, nil, fmt.Errorf("migrate: open the node's database: %w", err)
	}
	defer be.Close()
	st, err := app.VerifyState(ctx, be)
	if err != nil {
		return nil, st, nil, fmt.Errorf("migrate: the node's database: %w", err)
	}
	system, err := be.LoadSystem(ctx)
	if err != nil {
		return nil, st, nil, fmt.Errorf("migrate: %w", err)
	}
	if !app.CanonicalInputs(system) {
		return nil, st, nil, fmt.Errorf("migrate: the node's last block (height %d) has an AppHash of its engine's own (protocol version before 5): no other engine can reproduce it", st.Height)
	}
	var dump bytes.Buffer
	h, err := Dump(ctx, home, &dump)
	if err != nil {
		return nil, st, nil, fmt.Errorf("migrate: %w", err)
	}
	if after, err := be.LoadState(ctx); err != nil || h != st.Height || after.Height != st.Height {
		return nil, st, nil, fmt.Errorf("migrate: the database moved from height %d while it was read (dump at %d): stop the node first (%v)", st.Height, h, err)
	}
	return &dump, st, system, nil
}

// writeTarget runs the dump and the system state into the new, empty
// database of target in one block committed as st, and checks it against
// st's AppHash. It returns the number of statements run.
func writeTarget(ctx context.Context, home string, target node.Config, dump *bytes.Buffer, st backend.State, system map[string][]byte) (int, error) {
	be, err := node.OpenBackend(ctx, home, target)
	if err != nil {
		return 0, fmt.Errorf("migrate: open the new database: %w", err)
	}
	defer be.Close()
	if cur, err := be.LoadState(ctx); err != nil || cur.Height != 0 {
		return 0, fmt.Errorf("migrate: the new database must be empty (it holds height %d; %v)", cur.Height, err)
	}
	stmts, err := dumpStatements(dump.String())
	if err != nil {
		return 0, err
	}
	blk, err := be.Begin(ctx)
	if err != nil {
		return 0, fmt.Errorf("migrate: begin: %w", err)
	}
	if err := fillBlock(ctx, blk, stmts, system, st); err != nil {
		_ = blk.Rollback(context.WithoutCancel(ctx))
		return 0, err
	}
	got, err := app.VerifyState(ctx, be)
	if err != nil {
		return 0, fmt.Errorf("migrate: the new database does not reproduce the node's AppHash (the old one is untouched): %w", err)
	}
	if got.Height != st.Height || !bytes.Equal(got.AppHash, st.AppHash) {
		return 0, fmt.Errorf("migrate: the new database records height %d, AppHash %X; the node's is %d, %X", got.Height, got.AppHash, st.Height, st.AppHash)
	}
	return len(stmts), nil
}

// fillBlock runs stmts and saves system in blk, and commits it as st.
func fillBlock(ctx context.Context, blk backend.Block, stmts []string, system map[string][]byte, st backend.State) error {
	for _, s := range stmts {
		if _, err := blk.Exec(ctx, s, nil); err != nil {
			return fmt.Errorf("migrate: run %.200q: %w", s, err)
		}
	}
	if err := blk.SaveSystem(ctx, system); err != nil {
		return fmt.Errorf("migrate: system state: %w", err)
	}
	if err := backend.CommitDigested(ctx, blk, st); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	return nil
}

// dumpStatements splits a dump (relchain's own text, PostgreSQL's SQL)
// into its statements, without the session's and transaction's own
// (SET, BEGIN, COMMIT): the block is the transaction.
func dumpStatements(dump string) ([]string, error) {
	all, err := pg_query.SplitWithScanner(dump, true)
	if err != nil {
		return nil, fmt.Errorf("migrate: split the dump: %w", err)
	}
	var out, setvals []string
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
		default:
			out = append(out, serialColumns.ReplaceAllStringFunc(s, serialColumn))
		}
	}
	return append(out, setvals...), nil
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
