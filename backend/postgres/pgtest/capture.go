package pgtest

import (
	"context"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"
)

// Capture variants that SetCapture installs, for benchmarks that compare
// them with relchain's own (issue 19): only CaptureRow is what the backend
// installs; the others exist here to be measured.
const (
	// CaptureRow is relchain.capture(), the PL/pgSQL row trigger.
	CaptureRow = "row"
	// CaptureStatement is three statement-level AFTER triggers (INSERT,
	// UPDATE, DELETE) with transition tables, each one set-based INSERT
	// per statement. It writes the same records as CaptureRow, except that
	// an UPDATE's before image is a 'B' record of its own rather than the
	// column old of its 'U' record: ChangeDigest reads both as the same two
	// records, so the digests are identical.
	CaptureStatement = "statement"
	// CaptureRowHash is the row trigger with each image replaced by the
	// hex of its sha256() computed in the server (a different digest: for
	// measurement only).
	CaptureRowHash = "row-sha256"
	// CaptureStatementHash is CaptureStatement with sha256() images.
	CaptureStatementHash = "statement-sha256"
	// CaptureRowJSON is the row trigger with row_to_json images, as
	// relchain's before row image format 2 (a different digest: for
	// measurement only).
	CaptureRowJSON = "row-json"
	// CaptureRowConstant is the row trigger writing a constant image: one
	// record per changed row that says nothing about it. It is the floor of
	// any PL/pgSQL row trigger that records each change (for measurement
	// only: the digests no longer follow the data).
	CaptureRowConstant = "row-constant"
	// CaptureNone drops the row-change capture triggers (TRUNCATE's stays):
	// what the block costs without capture, to show capture's share.
	CaptureNone = "none"
)

// CaptureVariants lists every variant SetCapture knows.
var CaptureVariants = []string{CaptureRow, CaptureStatement, CaptureRowHash, CaptureStatementHash,
	CaptureRowJSON, CaptureRowConstant, CaptureNone}

// rowImages is the image expression (of a row %s) and the suffix of the
// functions of each variant other than CaptureRow and CaptureNone.
var rowImages = map[string]struct{ suffix, image string }{
	CaptureStatement:     {"", textImage},
	CaptureRowHash:       {"_hash", hashImage},
	CaptureStatementHash: {"_hash", hashImage},
	CaptureRowJSON:       {"_json", jsonImage},
	CaptureRowConstant:   {"_constant", constantImage},
}

// captureFunctionsSQL creates the functions of the variants other than
// CaptureRow in schema relchain, given the image expression of a row x.
func captureFunctionsSQL(suffix, image string) string {
	img := func(row string) string { return fmt.Sprintf(image, row) }
	return `
CREATE OR REPLACE FUNCTION relchain.bench_capture_row` + suffix + `() RETURNS trigger
LANGUAGE plpgsql AS $fn$
BEGIN
	IF TG_OP = 'DELETE' THEN
		INSERT INTO relchain.changes (tbl, op, img) VALUES (TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME, 'D', ` + img("OLD") + `);
	ELSIF TG_OP = 'UPDATE' THEN
		INSERT INTO relchain.changes (tbl, op, img, old) VALUES (TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME, 'U', ` + img("NEW") + `, ` + img("OLD") + `);
	ELSE
		INSERT INTO relchain.changes (tbl, op, img) VALUES (TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME, 'I', ` + img("NEW") + `);
	END IF;
	RETURN NULL;
END
$fn$;
CREATE OR REPLACE FUNCTION relchain.bench_capture_ins` + suffix + `() RETURNS trigger
LANGUAGE plpgsql AS $fn$
BEGIN
	INSERT INTO relchain.changes (tbl, op, img)
	SELECT TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME, 'I', ` + img("n.*") + ` FROM relchain_new AS n;
	RETURN NULL;
END
$fn$;
CREATE OR REPLACE FUNCTION relchain.bench_capture_del` + suffix + `() RETURNS trigger
LANGUAGE plpgsql AS $fn$
BEGIN
	INSERT INTO relchain.changes (tbl, op, img)
	SELECT TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME, 'D', ` + img("o.*") + ` FROM relchain_old AS o;
	RETURN NULL;
END
$fn$;
CREATE OR REPLACE FUNCTION relchain.bench_capture_upd` + suffix + `() RETURNS trigger
LANGUAGE plpgsql AS $fn$
BEGIN
	INSERT INTO relchain.changes (tbl, op, img)
	SELECT TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME, 'U', ` + img("n.*") + ` FROM relchain_new AS n
	UNION ALL
	SELECT TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME, 'B', ` + img("o.*") + ` FROM relchain_old AS o;
	RETURN NULL;
END
$fn$;
`
}

const (
	jsonImage = "pg_catalog.row_to_json(%s)::text"
	// textImage is the backend's row image (format 2, rowImageOpen in
	// package postgres); TestCaptureStatementSameDigests holds them equal.
	textImage = "pg_catalog.textin(pg_catalog.record_out(%s))"
	hashImage = "pg_catalog.encode(pg_catalog.sha256(pg_catalog.convert_to(" + textImage + ", 'UTF8')), 'hex')"
	// constantImage ignores its row (the %.0s prints nothing of it).
	constantImage = "'{}'%.0s"
)

// SetCapture replaces the capture triggers of every plain table of
// schema public that has one by those of variant (see CaptureVariants),
// on conn (the database's owner or a superuser). Partitioned tables and
// partitions are not handled: benchmarks only.
func SetCapture(ctx context.Context, conn *pgx.Conn, variant string) error {
	if !slices.Contains(CaptureVariants, variant) {
		return fmt.Errorf("unknown capture variant %q (known: %v)", variant, CaptureVariants)
	}
	v, custom := rowImages[variant]
	if custom {
		if _, err := conn.Exec(ctx, captureFunctionsSQL(v.suffix, v.image)); err != nil {
			return fmt.Errorf("create capture functions: %w", err)
		}
	}
	rows, err := conn.Query(ctx, `SELECT DISTINCT pg_catalog.format('%I.%I', n.nspname, c.relname)
		FROM pg_trigger g JOIN pg_class c ON c.oid = g.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE g.tgname LIKE 'relchain\_capture%' AND c.relkind = 'r' AND n.nspname = 'public' ORDER BY 1`)
	if err != nil {
		return fmt.Errorf("list captured tables: %w", err)
	}
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return fmt.Errorf("list captured tables: %w", err)
	}
	for _, t := range tables {
		if _, err := conn.Exec(ctx, captureTriggersSQL(t, variant, v.suffix)); err != nil {
			return fmt.Errorf("capture %s on %s: %w", variant, t, err)
		}
	}
	return nil
}

// captureTriggersSQL drops table t's row-change capture triggers and
// creates variant's.
func captureTriggersSQL(t, variant, suffix string) string {
	sql := "DROP TRIGGER IF EXISTS relchain_capture ON " + t + "; " +
		"DROP TRIGGER IF EXISTS relchain_capture_i ON " + t + "; " +
		"DROP TRIGGER IF EXISTS relchain_capture_u ON " + t + "; " +
		"DROP TRIGGER IF EXISTS relchain_capture_d ON " + t + "; "
	switch variant {
	case CaptureNone:
		return sql
	case CaptureRow:
		return sql + "CREATE TRIGGER relchain_capture AFTER INSERT OR UPDATE OR DELETE ON " + t +
			" FOR EACH ROW EXECUTE FUNCTION relchain.capture()"
	case CaptureRowHash, CaptureRowJSON, CaptureRowConstant:
		return sql + "CREATE TRIGGER relchain_capture AFTER INSERT OR UPDATE OR DELETE ON " + t +
			" FOR EACH ROW EXECUTE FUNCTION relchain.bench_capture_row" + suffix + "()"
	case CaptureStatement, CaptureStatementHash:
		return sql +
			"CREATE TRIGGER relchain_capture_i AFTER INSERT ON " + t + " REFERENCING NEW TABLE AS relchain_new" +
			" FOR EACH STATEMENT EXECUTE FUNCTION relchain.bench_capture_ins" + suffix + "(); " +
			"CREATE TRIGGER relchain_capture_u AFTER UPDATE ON " + t + " REFERENCING OLD TABLE AS relchain_old NEW TABLE AS relchain_new" +
			" FOR EACH STATEMENT EXECUTE FUNCTION relchain.bench_capture_upd" + suffix + "(); " +
			"CREATE TRIGGER relchain_capture_d AFTER DELETE ON " + t + " REFERENCING OLD TABLE AS relchain_old" +
			" FOR EACH STATEMENT EXECUTE FUNCTION relchain.bench_capture_del" + suffix + "()"
	}
	panic("pgtest: unknown capture variant " + variant) // SetCapture checked it
}
