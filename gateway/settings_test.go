package gateway

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/relchain/relchain/pgwire"
)

// answer is what a client sees of one statement: a row description,
// values and tag, or an error's SQLSTATE.
type answer struct {
	column, value, tag, code string
}

func (a answer) String() string {
	if a.code != "" {
		return "ERROR " + a.code
	}
	return a.column + "=" + a.value + " [" + a.tag + "]"
}

// sessionAnswers are the session statements drivers send, in one
// session's order (each may depend on the ones before). Values whose
// text is the server's own (server_version, is_superuser, the user)
// are compared by column and tag only.
var sessionAnswers = []string{
	"SHOW TRANSACTION ISOLATION LEVEL",
	"show transaction_isolation",
	"SHOW default_transaction_isolation",
	"SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL SERIALIZABLE",
	"SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL SERIALIZABLE, READ WRITE",
	"SET default_transaction_isolation = 'serializable'",
	"SHOW TRANSACTION ISOLATION LEVEL",
	"SHOW TimeZone", "SHOW TIME ZONE", "SET TIME ZONE 'UTC'", "SET TIME ZONE 'utc'", "SHOW timezone",
	"SET TIME ZONE 'Etc/UTC'", "SHOW timezone", "SET timezone TO DEFAULT", "SHOW timezone",
	"SET TIME ZONE 'GMT'", "SHOW timezone", "SET TIME ZONE LOCAL", "SHOW timezone", "SET TIME ZONE 0", "SHOW timezone", "RESET TIME ZONE", "SHOW TimeZone",
	"SET TIME ZONE INTERVAL '+00:00' HOUR TO MINUTE", "SHOW timezone", "SET TIME ZONE INTERVAL '0'", "SHOW timezone", "RESET TIME ZONE",
	"SET extra_float_digits = 3", "SHOW extra_float_digits", "SET extra_float_digits TO 2", "SHOW extra_float_digits",
	"SET statement_timeout = 5000", "SHOW statement_timeout", "SET statement_timeout = '1min'", "SHOW statement_timeout",
	"SET statement_timeout = 1500", "SHOW statement_timeout", "SET statement_timeout = 0", "SHOW statement_timeout",
	"SHOW search_path", "SET search_path TO public", "SHOW search_path", `SET search_path = "$user", public`, "SHOW search_path",
	"SET search_path TO '$user', public", "SHOW search_path", "RESET search_path", "SHOW search_path",
	"SET application_name = 'myapp'", "SHOW application_name", "DISCARD ALL", "SHOW application_name",
	"SET application_name TO 'other'", "RESET application_name", "SHOW application_name",
	"SET client_encoding = 'utf8'", "SET client_encoding TO 'UTF-8'", "SET NAMES 'UTF8'", "SHOW client_encoding",
	"SET datestyle = 'ISO'", "SHOW datestyle", "SET DateStyle TO 'ISO, MDY'", "SHOW DateStyle", "SET datestyle = iso, mdy", "SHOW datestyle",
	"SET statement_timeout = 250", "RESET ALL", "SHOW statement_timeout",
	"SHOW standard_conforming_strings", "SHOW integer_datetimes", "SHOW server_encoding", "SHOW IntervalStyle",
	"SHOW bytea_output", "SHOW max_identifier_length", "SHOW lc_messages", "SHOW client_min_messages",
	"SHOW transaction_read_only", "SHOW default_transaction_read_only",
	// pg_dump's preamble
	"SET statement_timeout = 0", "SET lock_timeout = 0", "SET idle_in_transaction_session_timeout = 0",
	"SET client_encoding = 'UTF8'", "SET standard_conforming_strings = on", "SET check_function_bodies = true",
	"SET xmloption = content", "SET client_min_messages = warning", "SHOW client_min_messages", "SET row_security = on",
	"SET myapp.tenant = 'a'", "SHOW myapp.tenant",
	"BEGIN", "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE", "SHOW transaction_isolation", "SET TRANSACTION READ ONLY",
	"SHOW transaction_read_only", "COMMIT", "SHOW transaction_read_only",
	"SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY", "SHOW default_transaction_read_only", "BEGIN", "SHOW transaction_read_only", "ROLLBACK",
	"SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE", "SHOW default_transaction_read_only",
	"DISCARD PLANS", "DISCARD SEQUENCES", "DISCARD TEMP", "DISCARD TEMPORARY",
	"BEGIN", "DISCARD ALL", "ROLLBACK",
	// settings inside transactions: ROLLBACK restores, SET LOCAL ends with the transaction
	"SET statement_timeout = 100", "BEGIN", "SET statement_timeout = 200", "SET LOCAL statement_timeout = 300",
	"SHOW statement_timeout", "ROLLBACK", "SHOW statement_timeout",
	"BEGIN", "SET statement_timeout = 200", "SET LOCAL application_name = 'loc'", "SHOW application_name", "COMMIT",
	"SHOW statement_timeout", "SHOW application_name", "SET LOCAL application_name = 'x'", "SHOW application_name",
	"BEGIN", "SET TIME ZONE 'GMT'", "SHOW no_such_setting", "SET application_name = 'y'", "SHOW application_name", "ROLLBACK",
	"SHOW TimeZone", "SHOW application_name", "SET statement_timeout = 0",
	"SHOW server_version", "SHOW server_version_num", "SHOW is_superuser", "SHOW session_authorization",
	// malformed: the same SQLSTATE as PostgreSQL's
	"SHOW no_such_setting", "SET no_such_setting = 1", "RESET no_such_setting", "SET extra_float_digits = 4",
	"SET TIME ZONE 'No/Such_Zone'", "SET datestyle = 'bogus'", "SET statement_timeout = 'abc'",
	"SET server_version = '1'", "SET transaction_read_only = 'maybe'", "SET client_encoding = 'klingon'",
	"SHOW myapp.unset",
}

// serverValued are statements whose value is the server's own.
var serverValued = map[string]bool{"SHOW server_version": true, "SHOW server_version_num": true, "SHOW is_superuser": true, "SHOW session_authorization": true}

// testSession is a gateway session without nodes: it is enough for the
// statements the gateway answers itself.
func testSession(dialect string) *session {
	g := &Gateway{dialect: dialect}
	return newSession(g, &User{Name: "alice"}, map[string]string{"application_name": ""})
}

func gatewayAnswer(t *testing.T, s *session, sql string) answer {
	t.Helper()
	res, err := s.Execute(context.Background(), sql, nil)
	if err != nil {
		var pe *pgwire.Error
		if !errors.As(err, &pe) {
			t.Fatalf("%s: %v is not a PostgreSQL error", sql, err)
		}
		if pe.Message == "" {
			t.Errorf("%s: error %s without a message", sql, pe.Code)
		}
		return answer{code: pe.Code}
	}
	a := answer{tag: res.Tag}
	if len(res.Columns) == 1 && len(res.Rows) == 1 {
		a.column, a.value = res.Columns[0].Name, res.Rows[0][0].(string)
		d, derr := s.Describe(context.Background(), sql, nil)
		if derr != nil || len(d.Columns) != 1 || d.Columns[0].Name != a.column {
			t.Errorf("%s: Describe gives %+v, %v; Execute's column is %q", sql, d.Columns, derr, a.column)
		}
	}
	return a
}

func postgresAnswer(t *testing.T, conn *pgx.Conn, sql string) answer {
	t.Helper()
	results, err := conn.PgConn().Exec(context.Background(), sql).ReadAll()
	if err != nil {
		var pe *pgconn.PgError
		if !errors.As(err, &pe) {
			t.Fatalf("PostgreSQL: %s: %v", sql, err)
		}
		return answer{code: pe.Code}
	}
	r := results[0]
	a := answer{tag: r.CommandTag.String()}
	if len(r.FieldDescriptions) == 1 && len(r.Rows) == 1 {
		a.column, a.value = r.FieldDescriptions[0].Name, string(r.Rows[0][0])
	}
	return a
}

// TestSessionStatementsAnswerAsPostgreSQL runs the statements drivers
// send on a real PostgreSQL 15 session (set up as relchain runs:
// serializable, UTC) and on a gateway session of each backend, and
// compares column name, value text, command tag and SQLSTATE.
func TestSessionStatementsAnswerAsPostgreSQL(t *testing.T) {
	dsn := referencePostgres(t)
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.RuntimeParams["TimeZone"] = "UTC"
	cfg.RuntimeParams["default_transaction_isolation"] = "serializable"
	cfg.RuntimeParams["application_name"] = ""
	cfg.RuntimeParams["client_min_messages"] = "notice"
	conn, err := pgx.ConnectConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	want := make([]answer, len(sessionAnswers))
	for i, sql := range sessionAnswers {
		want[i] = postgresAnswer(t, conn, sql)
	}
	for _, dialect := range []string{"postgres", "sqlite", "mysql"} {
		s := testSession(dialect)
		for i, sql := range sessionAnswers {
			got := gatewayAnswer(t, s, sql)
			w := want[i]
			if serverValued[sql] {
				got.value, w.value = "", ""
			}
			if got != w {
				t.Errorf("%s: %s: gateway answers %v, PostgreSQL %v", dialect, sql, got, w)
			}
		}
	}
}

// TestSessionRefusesWhatItCannotHonour: values PostgreSQL accepts but
// relchain cannot put in effect are refused with 0A000 naming the
// setting, and the setting keeps the value that is in effect.
func TestSessionRefusesWhatItCannotHonour(t *testing.T) {
	for _, c := range []struct{ sql, setting, show string }{
		{"SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL READ COMMITTED", "isolation", "SHOW default_transaction_isolation"},
		{"SET default_transaction_isolation = 'repeatable read'", "isolation", "SHOW default_transaction_isolation"},
		{"SET transaction_isolation TO 'read uncommitted'", "isolation", "SHOW transaction_isolation"},
		{"BEGIN ISOLATION LEVEL READ COMMITTED", "isolation", "SHOW transaction_isolation"},
		{"START TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY", "isolation", "SHOW transaction_isolation"},
		{"SET TIME ZONE 'Europe/Paris'", "TimeZone", "SHOW TimeZone"},
		{"SET TIME ZONE 5", "TimeZone", "SHOW TimeZone"},
		{"SET timezone = 'America/New_York'", "TimeZone", "SHOW TimeZone"},
		{"SET datestyle = 'German'", "DateStyle", "SHOW DateStyle"},
		{"SET datestyle = 'ISO, DMY'", "DateStyle", "SHOW DateStyle"},
		{"SET extra_float_digits = 0", "extra_float_digits", "SHOW extra_float_digits"},
		{"SET search_path = ''", "search_path", "SHOW search_path"},
		{"SET search_path = myschema, public", "search_path", "SHOW search_path"},
		{"SET client_encoding = 'LATIN1'", "client_encoding", "SHOW client_encoding"},
		{"SET standard_conforming_strings = off", "standard_conforming_strings", "SHOW standard_conforming_strings"},
		{"SET bytea_output = escape", "bytea_output", "SHOW bytea_output"},
		{"SET IntervalStyle = iso_8601", "IntervalStyle", "SHOW IntervalStyle"},
		{"SET lock_timeout = '1s'", "lock_timeout", "SHOW lock_timeout"},
		{"SET SESSION AUTHORIZATION bob", "AUTHORIZATION", "SHOW session_authorization"},
	} {
		for _, dialect := range []string{"postgres", "sqlite", "mysql"} {
			s := testSession(dialect)
			before := gatewayAnswer(t, s, c.show)
			_, err := s.Execute(context.Background(), c.sql, nil)
			var pe *pgwire.Error
			if !errors.As(err, &pe) || pe.Code != stateFeature || !strings.Contains(pe.Message, c.setting) {
				t.Errorf("%s: %s: %v, want 0A000 naming %s", dialect, c.sql, err, c.setting)
			}
			if after := gatewayAnswer(t, s, c.show); after != before {
				t.Errorf("%s: after the refused %s, %s answers %v (was %v)", dialect, c.sql, c.show, after, before)
			}
			if s.tx != nil {
				t.Errorf("%s: the refused %s opened a transaction", dialect, c.sql)
			}
		}
	}
}

// TestStartupParametersAreNotClaimed: a startup parameter the gateway
// cannot honour (pgjdbc sends the JVM's time zone) is not reported as
// in effect; one it can honour is.
func TestStartupParametersAreNotClaimed(t *testing.T) {
	s := newSession(&Gateway{dialect: "sqlite"}, &User{Name: "alice"}, map[string]string{
		"TimeZone": "Europe/Berlin", "extra_float_digits": "3", "DateStyle": "ISO", "application_name": "jdbc", "no_such": "x",
	})
	for sql, want := range map[string]string{"SHOW TimeZone": "UTC", "SHOW extra_float_digits": "3", "SHOW DateStyle": "ISO, MDY", "SHOW application_name": "jdbc"} {
		if got := gatewayAnswer(t, s, sql); got.value != want {
			t.Errorf("%s = %v, want %q", sql, got, want)
		}
	}
	if got := gatewayAnswer(t, s, "SHOW no_such"); got.code != stateUndefinedParam {
		t.Errorf("SHOW no_such = %v: an unknown startup parameter was claimed", got)
	}
}

// TestDefaultReadOnlyRefusesWrites: default_transaction_read_only is in
// effect for autocommit writes (25006 before any node is asked) and for
// the transactions BEGIN opens.
func TestDefaultReadOnlyRefusesWrites(t *testing.T) {
	s := testSession("sqlite")
	gatewayAnswer(t, s, "SET default_transaction_read_only = on")
	if got := gatewayAnswer(t, s, "INSERT INTO t VALUES (1)"); got.code != stateReadOnlyTx {
		t.Errorf("autocommit INSERT under default_transaction_read_only: %v, want 25006", got)
	}
	gatewayAnswer(t, s, "BEGIN")
	if s.tx == nil || !s.tx.readOnly {
		t.Errorf("BEGIN under default_transaction_read_only opened %+v, want a read-only transaction", s.tx)
	}
}

// TestHostileSessionStatements: truncated and odd session statements get
// an error or an answer, never a panic, and leave the settings valid.
func TestHostileSessionStatements(t *testing.T) {
	for _, sql := range []string{
		"SET", "RESET", "SHOW", "SET TRANSACTION", "SET SESSION CHARACTERISTICS", "SET SESSION CHARACTERISTICS AS",
		"SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL", "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE READ",
		"SET TIME ZONE", "SET TIME ZONE ''", "SET search_path = ,,,", "SET search_path = '\"'", "SET statement_timeout = '99999999999 d'",
		"SET statement_timeout = -1", "SET statement_timeout = '1 fortnight'", "DISCARD", "DISCARD nothing", "DEALLOCATE",
		"SET x.y", "SET (TRANSACTION READ ONLY", "SET /* c */ SESSION /* c */ CHARACTERISTICS AS TRANSACTION READ WRITE",
		"SHOW 'unterminated", "SET application_name = '\x00\xff'", "SET datestyle = ''", "SET relchain.last_commit_height = 1",
		"RESET relchain.last_commit_height", "SET relchain.min_height = 'x'", "SET relchain.nothing = 1",
		"BEGIN ISOLATION LEVEL", "START TRANSACTION ISOLATION LEVEL SERIALIZABLE, READ ONLY",
	} {
		s := testSession("sqlite")
		res, err := s.Execute(context.Background(), sql, nil)
		var pe *pgwire.Error
		if err != nil && !errors.As(err, &pe) {
			t.Errorf("%q: %v is not a PostgreSQL error", sql, err)
		}
		if err == nil && res == nil {
			t.Errorf("%q: no result and no error", sql)
		}
		for _, show := range []string{"SHOW TimeZone", "SHOW statement_timeout", "SHOW search_path"} {
			if a := gatewayAnswer(t, s, show); a.code != "" {
				t.Errorf("after %q, %s fails: %v", sql, show, a)
			}
		}
	}
}
