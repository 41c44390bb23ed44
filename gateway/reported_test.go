package gateway

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
)

// wireSteps are messages a client sends after startup: a simple query,
// or "parse NAME", "run NAME" (Bind, Execute, Sync) for a named prepared
// statement of SHOW application_name (which the gateway describes itself).
var wireSteps = []string{
	"SET application_name = 'app1'",
	"SET application_name = 'app1'", // unchanged: not reported again
	"SET DateStyle = 'ISO, MDY'",    // the value in effect: not reported
	"SET application_name = 'app2'; SHOW application_name",
	"BEGIN; SET application_name = 'inner'", "ROLLBACK",
	"BEGIN", "SET LOCAL application_name = 'local'", "COMMIT",
	"SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY", "SET default_transaction_read_only = off",
	"SET IntervalStyle = 'postgres'", "SET standard_conforming_strings = on",
	"parse s1", "run s1", "DISCARD ALL", "run s1",
	"parse s2", "DEALLOCATE s2", "DEALLOCATE s2", "run s2",
	"parse S3", `DEALLOCATE "S3"`, "parse s4", "DEALLOCATE PREPARE ALL", "run s4",
	"SET application_name = 'x'", "RESET ALL",
	"parse s5", "SET application_name = 'y'", "DEALLOCATE ALL", "run s5",
}

// wireTrace runs wireSteps on a connection and returns what came back:
// ParameterStatus, CommandComplete and error codes, and ReadyForQuery.
func wireTrace(t *testing.T, dsn string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgconn.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	hj, err := conn.Hijack()
	if err != nil {
		t.Fatal(err)
	}
	defer hj.Conn.Close()
	fe := hj.Frontend
	var trace []string
	for _, step := range wireSteps {
		trace = append(trace, "> "+step)
		switch {
		case strings.HasPrefix(step, "parse "):
			fe.Send(&pgproto3.Parse{Name: step[6:], Query: "SHOW application_name"})
			fe.Send(&pgproto3.Sync{})
		case strings.HasPrefix(step, "run "):
			fe.Send(&pgproto3.Bind{PreparedStatement: step[4:]})
			fe.Send(&pgproto3.Execute{})
			fe.Send(&pgproto3.Sync{})
		default:
			fe.Send(&pgproto3.Query{String: step})
		}
		if err := fe.Flush(); err != nil {
			t.Fatal(err)
		}
		for {
			m, err := fe.Receive()
			if err != nil {
				t.Fatalf("%s: %v", step, err)
			}
			switch x := m.(type) {
			case *pgproto3.ParameterStatus:
				trace = append(trace, fmt.Sprintf("ParameterStatus %s=%s", x.Name, x.Value))
			case *pgproto3.CommandComplete:
				trace = append(trace, "CommandComplete "+string(x.CommandTag))
			case *pgproto3.ErrorResponse:
				trace = append(trace, "Error "+x.Code)
			case *pgproto3.ReadyForQuery:
				trace = append(trace, fmt.Sprintf("ReadyForQuery %c", x.TxStatus))
			}
			if _, ok := m.(*pgproto3.ReadyForQuery); ok {
				break
			}
		}
	}
	return trace
}

// TestParameterStatusAndDeallocateAsPostgreSQL: the gateway reports a
// changed GUC_REPORT setting before ReadyForQuery, once, as PostgreSQL 15
// does, and DEALLOCATE and DISCARD ALL remove the connection's prepared
// statements as PostgreSQL's do.
func TestParameterStatusAndDeallocateAsPostgreSQL(t *testing.T) {
	dsn := referencePostgres(t)
	want := wireTrace(t, dsn+"&application_name=")
	_, gw := startSettingsGateway(t)
	got := wireTrace(t, gw)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the gateway's messages differ from PostgreSQL's:\n%s", sideBySide(got, want))
	}
}

func sideBySide(got, want []string) string {
	var b strings.Builder
	for i := 0; i < max(len(got), len(want)); i++ {
		g, w := "", ""
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		mark := "  "
		if g != w {
			mark = "!="
		}
		fmt.Fprintf(&b, "%s %-50s %s\n", mark, g, w)
	}
	return "gateway / PostgreSQL\n" + b.String()
}
