package gateway

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/relchain/relchain/pgwire"
)

// savepointAnswers are savepoint statements in one session's order, with
// SET (answered by the gateway) standing in for the statements between
// them and an unknown setting for a failing statement.
var savepointAnswers = []string{
	"SAVEPOINT a", "RELEASE a", "RELEASE SAVEPOINT a", "ROLLBACK TO a", "ROLLBACK TRANSACTION TO SAVEPOINT a",
	"BEGIN", "RELEASE SAVEPOINT nope", "ROLLBACK",
	"BEGIN", "ROLLBACK TO SAVEPOINT nope", "ROLLBACK",
	// A failed transaction is usable again after ROLLBACK TO.
	"BEGIN", "SAVEPOINT a", "SET nosuch = 1", "SHOW TimeZone", "RELEASE a", "ROLLBACK TO a", "SHOW TimeZone", "COMMIT",
	// Case folding: an unquoted name is lower case, a quoted one is kept.
	"BEGIN", `SAVEPOINT "A"`, "RELEASE a", `RELEASE "A"`, "ROLLBACK WORK TO SAVEPOINT a", "ROLLBACK",
	"BEGIN", "SAVEPOINT Sa_Savepoint_1", `RELEASE SAVEPOINT "sa_savepoint_1"`, "COMMIT",
	// Nesting and shadowing: RELEASE and ROLLBACK TO find the newest of a
	// name; releasing an outer one releases those set after it.
	"BEGIN", "SAVEPOINT a", "SAVEPOINT b", "SAVEPOINT a", "RELEASE a", "ROLLBACK TO a", "RELEASE a",
	"ROLLBACK TO b", "SHOW TimeZone", "ROLLBACK TO a", "ROLLBACK",
	// ROLLBACK TO keeps the savepoint; it undoes SET, SET LOCAL and
	// SET TRANSACTION READ ONLY's effect on settings since it.
	"BEGIN", "SET TIME ZONE 'UTC'", "SAVEPOINT a", "SET application_name = 'inner'", "SET LOCAL statement_timeout = 5",
	"ROLLBACK TO a", "SHOW application_name", "SHOW statement_timeout", "SET application_name = 'again'",
	"ROLLBACK TO SAVEPOINT a", "SHOW application_name", "RELEASE a", "COMMIT", "SHOW application_name",
	// Savepoints end with their transaction.
	"BEGIN", "SAVEPOINT a", "COMMIT", "BEGIN", "RELEASE a", "ROLLBACK",
	"BEGIN", "SAVEPOINT a", "SET nosuch = 1", "ROLLBACK TO nope", "SHOW TimeZone", "ROLLBACK TO a", "SHOW TimeZone", "ROLLBACK",
	// Malformed.
	"BEGIN", "SAVEPOINT", "ROLLBACK", "BEGIN", "SAVEPOINT a b", "ROLLBACK", "BEGIN", "SAVEPOINT 'a'", "ROLLBACK",
	"BEGIN", `SAVEPOINT ""`, "ROLLBACK", "BEGIN", "ROLLBACK TO", "ROLLBACK",
	"BEGIN", "SAVEPOINT a; ", "RELEASE /* c */ a -- x", "COMMIT",
	"BEGIN", "SAVEPOINT a", "ABORT TO a", "ROLLBACK",
	"BEGIN", "ROLLBACK TO SAVEPOINT", "ROLLBACK", "BEGIN", "RELEASE SAVEPOINT", "ROLLBACK",
	"BEGIN", "SAVEPOINT savepoint", "RELEASE savepoint", "SAVEPOINT é", "ROLLBACK TO é", "RELEASE SAVEPOINT é",
	`SAVEPOINT "a""b"`, `ROLLBACK TO "a""b"`, "SAVEPOINT a.b", "ROLLBACK", "BEGIN", `SAVEPOINT "`, "ROLLBACK",
	"BEGIN", "ROLLBACK WORK TO", "ROLLBACK", "BEGIN", "SAVEPOINT a", "ROLLBACK TO SAVEPOINT a a", "ROLLBACK",
}

// TestSavepointsAreBounded: a client cannot open savepoints without
// bound; releasing them makes room again.
func TestSavepointsAreBounded(t *testing.T) {
	s := testSession("sqlite")
	ctx := context.Background()
	if _, err := s.Execute(ctx, "BEGIN", nil); err != nil {
		t.Fatal(err)
	}
	for i := range maxSavepoints {
		if _, err := s.Execute(ctx, fmt.Sprintf("SAVEPOINT s%d", i), nil); err != nil {
			t.Fatalf("savepoint %d: %v", i, err)
		}
	}
	var pe *pgwire.Error
	if _, err := s.Execute(ctx, "SAVEPOINT one_more", nil); !errors.As(err, &pe) || pe.Code != stateProgramLimit {
		t.Fatalf("savepoint %d: %v, want 54000", maxSavepoints+1, err)
	}
	for _, sql := range []string{"ROLLBACK TO s0", "RELEASE s0", "SAVEPOINT again"} {
		if _, err := s.Execute(ctx, sql, nil); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
}

// TestSavepointsAnswerAsPostgreSQL runs savepointAnswers on a real
// PostgreSQL session and on gateway sessions of each backend and compares
// tags, values, SQLSTATEs and the transaction status after each.
func TestSavepointsAnswerAsPostgreSQL(t *testing.T) {
	dsn := referencePostgres(t)
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.RuntimeParams["TimeZone"] = "UTC"
	cfg.RuntimeParams["application_name"] = ""
	conn, err := pgx.ConnectConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	type step struct {
		a      answer
		status byte
	}
	want := make([]step, len(savepointAnswers))
	for i, sql := range savepointAnswers {
		want[i] = step{postgresAnswer(t, conn, sql), conn.PgConn().TxStatus()}
	}
	for _, dialect := range []string{"postgres", "sqlite", "mysql"} {
		s := testSession(dialect)
		for i, sql := range savepointAnswers {
			got := step{gatewayAnswer(t, s, sql), s.TxStatus()}
			if got != want[i] {
				t.Errorf("%s: statement %d %q: gateway answers %v (status %c), PostgreSQL %v (status %c)",
					dialect, i+1, sql, got.a, got.status, want[i].a, want[i].status)
			}
		}
	}
}
