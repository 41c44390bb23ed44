package pgwire

import (
	"context"
	"maps"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
)

// reportingSession is a fakeSession with reported settings ("SET name =
// value") and the statements that remove prepared statements.
type reportingSession struct {
	*fakeSession
	reported map[string]string
}

func (r *reportingSession) ReportedParameters() map[string]string { return maps.Clone(r.reported) }

func (r *reportingSession) Execute(ctx context.Context, sql string, params []any) (*Result, error) {
	switch {
	case strings.HasPrefix(sql, "SET "):
		name, value, _ := strings.Cut(strings.TrimPrefix(sql, "SET "), " = ")
		r.reported[name] = value
		return &Result{Tag: "SET"}, nil
	case sql == "DISCARD ALL":
		r.reported["TimeZone"] = "Etc/UTC"
		return &Result{Tag: "DISCARD ALL", DeallocateAll: true, ClosePortals: true}, nil
	case sql == "DEALLOCATE ALL":
		return &Result{Tag: "DEALLOCATE ALL", DeallocateAll: true}, nil
	case strings.HasPrefix(sql, "DEALLOCATE "):
		return &Result{Tag: "DEALLOCATE", Deallocate: strings.TrimPrefix(sql, "DEALLOCATE ")}, nil
	}
	return r.fakeSession.Execute(ctx, sql, params)
}

func (r *reportingSession) Describe(ctx context.Context, sql string, paramOIDs []uint32) (Description, error) {
	if strings.HasPrefix(sql, "SET ") || strings.HasPrefix(sql, "DEALLOCATE ") || sql == "DISCARD ALL" {
		return Description{Params: paramOIDs}, nil
	}
	return r.fakeSession.Describe(ctx, sql, paramOIDs)
}

func startReportingServer(t *testing.T) *testServer {
	return startTestServer(t, func(srv *Server) {
		newSession := srv.NewSession
		srv.NewSession = func(ctx context.Context, user string, params map[string]string) (Session, error) {
			s, err := newSession(ctx, user, params)
			if err != nil {
				return nil, err
			}
			return &reportingSession{fakeSession: s.(*fakeSession),
				reported: map[string]string{"TimeZone": "Europe/Test", "application_name": params["application_name"], "custom_reported": "x"}}, nil
		}
	})
}

// TestParameterStatusReportsChanges: a ParameterReporter's values replace
// the startup defaults, and a changed value is sent once, after the
// command's CommandComplete and before ReadyForQuery.
func TestParameterStatusReportsChanges(t *testing.T) {
	ts := startReportingServer(t)
	pc, err := pgconn.Connect(testContext(t), ts.dsn(testUser, testPassword, "sslmode=disable&application_name=start"))
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close(testContext(t))
	for name, want := range map[string]string{"TimeZone": "Europe/Test", "application_name": "start", "custom_reported": "x", "DateStyle": "ISO, MDY"} {
		if got := pc.ParameterStatus(name); got != want {
			t.Errorf("startup ParameterStatus %s = %q, want %q", name, got, want)
		}
	}
	rc := dialRaw(t, ts)
	rc.send(&pgproto3.Query{String: "SET application_name = app; SELECT 1"})
	got := rc.expect("SET", rowDesc, dataRow, "SELECT 1", &pgproto3.ParameterStatus{}, ready)
	if ps := got[4].(*pgproto3.ParameterStatus); ps.Name != "application_name" || ps.Value != "app" {
		t.Errorf("ParameterStatus %s=%s, want application_name=app", ps.Name, ps.Value)
	}
	rc.send(&pgproto3.Query{String: "SET application_name = app"})
	rc.expect("SET", ready) // unchanged: not reported again
	rc.send(&pgproto3.Parse{Query: "SET TimeZone = UTC"}, &pgproto3.Bind{}, &pgproto3.Execute{}, &pgproto3.Sync{})
	got = rc.expect(parseComplete, bindComplete, "SET", &pgproto3.ParameterStatus{}, ready)
	if ps := got[3].(*pgproto3.ParameterStatus); ps.Name != "TimeZone" || ps.Value != "UTC" {
		t.Errorf("ParameterStatus %s=%s, want TimeZone=UTC", ps.Name, ps.Value)
	}
}

// TestDeallocateAndDiscardAll: a Result's DeallocateAll, Deallocate and
// ClosePortals remove the connection's prepared statements and portals
// as PostgreSQL's DEALLOCATE and DISCARD ALL do; the unnamed statement
// stays.
func TestDeallocateAndDiscardAll(t *testing.T) {
	rc := dialRaw(t, startReportingServer(t))
	rc.send(&pgproto3.Parse{Name: "s1", Query: "SELECT * FROM series(3)"}, &pgproto3.Parse{Name: "s2", Query: "SELECT 1"},
		&pgproto3.Parse{Query: "SELECT 1"}, &pgproto3.Sync{})
	rc.expect(parseComplete, parseComplete, parseComplete, ready)
	rc.send(&pgproto3.Query{String: "DEALLOCATE s2"})
	rc.expect("DEALLOCATE", ready)
	rc.send(&pgproto3.Query{String: "DEALLOCATE s2"})
	rc.expect(codeUndefinedPreparedStmt, ready)
	// A portal kept open by a transaction is closed by DISCARD ALL.
	rc.send(&pgproto3.Query{String: "BEGIN"})
	rc.expect("BEGIN", ready)
	rc.send(&pgproto3.Bind{PreparedStatement: "s1", DestinationPortal: "p"}, &pgproto3.Execute{Portal: "p", MaxRows: 1}, &pgproto3.Sync{})
	rc.expect(bindComplete, dataRow, suspended, ready)
	rc.send(&pgproto3.Query{String: "DISCARD ALL"})
	rc.expect("DISCARD ALL", &pgproto3.ParameterStatus{}, ready)
	rc.send(&pgproto3.Execute{Portal: "p"}, &pgproto3.Sync{})
	rc.expect(codeUndefinedCursor, ready)
	rc.send(&pgproto3.Bind{PreparedStatement: "s1"}, &pgproto3.Sync{})
	rc.expect(codeUndefinedPreparedStmt, ready)
	// The unnamed statement stays (a simple query drops it, so bind it in
	// the same batch as the DEALLOCATE ALL that runs as a portal).
	rc.send(&pgproto3.Parse{Name: "s3", Query: "SELECT 1"}, &pgproto3.Parse{Query: "DEALLOCATE ALL"}, &pgproto3.Bind{},
		&pgproto3.Execute{}, &pgproto3.Bind{PreparedStatement: "s3"}, &pgproto3.Sync{})
	rc.expect(parseComplete, parseComplete, bindComplete, "DEALLOCATE ALL", codeUndefinedPreparedStmt, ready)
	rc.send(&pgproto3.Bind{}, &pgproto3.Execute{}, &pgproto3.Sync{})
	rc.expect(bindComplete, "DEALLOCATE ALL", ready)
}
