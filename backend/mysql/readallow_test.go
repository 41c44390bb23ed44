package mysql_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	_ "github.com/go-sql-driver/mysql"

	"github.com/relchain/relchain/backend"
)

// plainName is an identifier MySQL reads unquoted.
var plainName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// reserved are the system tables' names the parser reads as keywords.
var reserved = map[string]bool{"event": true}

// The read path's allowlist of system relations is empty on MySQL and
// MariaDB: every table and view of information_schema, mysql,
// performance_schema and sys on the real server is refused by Query (no
// key needed), with a permission error (SQLSTATE 42000, MySQL's for access
// refusals) naming it and relchain's read
// allowlist, however it is spelled. A table a later server release adds
// is refused the same way. A PostgreSQL catalog query (pgcatalog.Wants:
// information_schema.COLUMNS, say) is answered from the emulated catalog
// instead, which shows nothing of the server (answeredByCatalog).
func TestReadAllowlistCoversEverySystemRelationOfTheServer(t *testing.T) {
	b, db, facts := mustOpenWithServer(t)
	rows, err := db.QueryContext(ctx(t), `SELECT TABLE_SCHEMA, TABLE_NAME FROM information_schema.TABLES
		WHERE TABLE_SCHEMA IN ('information_schema', 'mysql', 'performance_schema', 'sys') ORDER BY 1, 2`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	count := map[string]int{}
	for rows.Next() {
		var schema, name string
		if err := rows.Scan(&schema, &name); err != nil {
			t.Fatal(err)
		}
		count[schema]++
		full := strings.ToLower(schema + "." + name)
		bare := name
		if !plainName.MatchString(name) || reserved[strings.ToLower(name)] {
			bare = "`" + name + "`" // sys's x$ views, mysql.event
		}
		for _, q := range []string{
			fmt.Sprintf("SELECT * FROM %s.%s", schema, bare),
			fmt.Sprintf("SELECT * FROM `%s`.`%s`", strings.ToUpper(schema), name),
			fmt.Sprintf("SELECT 1 FROM DUAL WHERE EXISTS (SELECT 1 FROM %s.%s)", schema, bare),
		} {
			res, _, err := b.Query(ctx(t), q, nil)
			if answeredByCatalog(t, facts, q, res, err) {
				continue
			}
			e := backend.AsError(err)
			if e == nil || e.Class != backend.ClassPermission {
				t.Errorf("Query(%q) = %v, %v; want a permission refusal", q, res, err)
				continue
			}
			if msg := strings.ToLower(e.Message); !strings.Contains(msg, "not on relchain's read allowlist") || !strings.Contains(msg, full) {
				t.Errorf("Query(%q) = %v; want a refusal naming %s and relchain's read allowlist", q, err, full)
			}
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if count["information_schema"] < 50 || count["mysql"] < 20 || count["performance_schema"] < 50 {
		t.Fatalf("the server lists %v system relations; expected MariaDB's", count)
	}
	t.Logf("system relations refused: %v", count)
}

// Reads without a key show nothing of the server's accounts, other
// databases, variables, processes or build; what the emulated PostgreSQL
// catalog answers (SELECT VERSION(), CURRENT_USER, information_schema's
// SCHEMATA) is PostgreSQL's and relchain's, not the server's.
func TestReadPathRefusesTheServersAccountsAndState(t *testing.T) {
	b, _, facts := mustOpenWithServer(t)
	for _, q := range []string{
		"SELECT User, Host, authentication_string FROM mysql.user",
		"SELECT * FROM mysql.global_priv",
		"SELECT * FROM mysql.db",
		"SELECT * FROM information_schema.PROCESSLIST",
		"SELECT * FROM information_schema.USER_PRIVILEGES",
		"SELECT * FROM information_schema.SCHEMATA",
		"SELECT * FROM information_schema.GLOBAL_VARIABLES",
		"SELECT * FROM information_schema.APPLICABLE_ROLES",
		"SELECT * FROM performance_schema.threads",
		"SELECT * FROM performance_schema.events_statements_history",
		"SELECT * FROM sys.processlist",
		"SELECT @@global.datadir",
		"SELECT @@hostname",
		"SELECT @@version",
		"SELECT @@global.init_connect",
		"SELECT @@session.sql_mode",
		"SELECT VERSION()",
		"SELECT USER()",
		"SELECT CURRENT_USER()",
		"SELECT CURRENT_USER",
		"SELECT DATABASE()",
		"SELECT CONNECTION_ID()",
		"SELECT LOAD_FILE('/etc/passwd')",
		"SELECT sys.version_major()",
		"SELECT mysql.f()",
		"SELECT * FROM other_db.t",
		"SHOW DATABASES",
		"SHOW GRANTS",
		"SHOW VARIABLES",
		"SHOW PROCESSLIST",
	} {
		res, _, err := b.Query(ctx(t), q, nil)
		if answeredByCatalog(t, facts, q, res, err) {
			continue
		}
		if e := backend.AsError(err); e == nil || (e.Class != backend.ClassPermission && e.Class != backend.ClassSyntax) {
			t.Errorf("Query(%q) = %v, %v; want a refusal", q, res, err)
		}
	}
}
