package pgdialect_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/relchain/relchain/backend/mysql/mysqltest"
	"github.com/relchain/relchain/backend/mysql/pgdialect"
	"github.com/relchain/relchain/backend/mysql/pgdialect/pgdialecttest"
	"github.com/relchain/relchain/backend/postgres/pgtest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.Shutdown()
	mysqltest.Shutdown()
	os.Exit(code)
}

// step is one statement of a case file and what the file expects of it:
// by default both engines succeed with the same result; "error": both
// fail with the same SQLSTATE class; "refused": the translation refuses
// it (0A000) and it is not run.
type step struct {
	line   int
	sql    string
	args   []any // int64, string or nil
	expect string
}

// readCase reads a case file: statements end with ';' at the end of a
// line; '-- args: 1 'x' null' and '-- expect: error|refused' apply to the
// next statement; '#' lines are comments.
func readCase(t *testing.T, path string) []step {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	var steps []step
	var cur step
	var text []string
	for i, line := range strings.Split(string(b), "\n") {
		trim := strings.TrimSpace(line)
		switch {
		case trim == "" && len(text) == 0, strings.HasPrefix(trim, "#"):
		case strings.HasPrefix(trim, "-- args:"):
			cur.args = parseArgs(t, path, i+1, strings.TrimPrefix(trim, "-- args:"))
		case strings.HasPrefix(trim, "-- expect:"):
			cur.expect = strings.TrimSpace(strings.TrimPrefix(trim, "-- expect:"))
		default:
			if len(text) == 0 {
				cur.line = i + 1
			}
			text = append(text, line)
			if strings.HasSuffix(trim, ";") {
				cur.sql = strings.TrimSuffix(strings.TrimSpace(strings.Join(text, "\n")), ";")
				steps = append(steps, cur)
				cur, text = step{}, nil
			}
		}
	}
	if len(text) > 0 {
		t.Fatalf("%s: a statement without its closing ';'", path)
	}
	return steps
}

// parseArgs reads 1 'text' null.
func parseArgs(t *testing.T, path string, line int, s string) []any {
	var out []any
	s = strings.TrimSpace(s)
	for s != "" {
		switch {
		case s[0] == '\'':
			j := 1
			var v strings.Builder
			for ; j < len(s); j++ {
				if s[j] == '\'' {
					if j+1 < len(s) && s[j+1] == '\'' {
						v.WriteByte('\'')
						j++
						continue
					}
					break
				}
				v.WriteByte(s[j])
			}
			out = append(out, v.String())
			s = s[min(j+1, len(s)):]
		default:
			tok, rest, _ := strings.Cut(s, " ")
			if tok == "null" {
				out = append(out, nil)
			} else {
				n, err := strconv.ParseInt(tok, 10, 64)
				if err != nil {
					t.Fatalf("%s:%d: argument %q", path, line, tok)
				}
				out = append(out, n)
			}
			s = rest
		}
		s = strings.TrimSpace(s)
	}
	return out
}

// TestDifferential runs every case file on a real PostgreSQL and a real
// MariaDB (the statement translated) and compares the outcomes.
func TestDifferential(t *testing.T) {
	files, err := filepath.Glob("testdata/*.case")
	if err != nil || len(files) == 0 {
		t.Fatalf("no case files: %v", err)
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".case"), func(t *testing.T) {
			runCase(t, f)
		})
	}
}

func runCase(t *testing.T, path string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	pg := pgdialecttest.OpenPG(ctx, t)
	my := pgdialecttest.OpenMaria(ctx, t)
	steps := readCase(t, path)
	schema := pgdialect.NewSchema()
	for _, st := range steps {
		where := fmt.Sprintf("%s:%d %.80q", path, st.line, st.sql)
		onSchema := translateOnSchema(ctx, t, where, my, schema, st)
		want, got, err := pgdialecttest.Run(ctx, pg, my, st.sql, st.args)
		if err == nil && got.Err == "" && onSchema != nil {
			schema.Apply(onSchema)
		}
		var perr *pgdialect.Error
		refused := errors.As(err, &perr) && perr.Code == "0A000"
		switch {
		case st.expect == "refused":
			if !refused {
				t.Errorf("%s: want a refusal (0A000), got %v", where, err)
			}
		case err != nil:
			t.Errorf("%s: %v", where, err)
		default:
			compare(t, where, st.expect, want, got)
		}
	}
	t.Logf("%s: %d statements", path, len(steps))
}

// translateOnSchema translates st on schema (the DDL of the case so far,
// applied in memory) and on MariaDB's information_schema, and fails the
// test unless both give the same translation or the same error: a node
// without MariaDB judges statements by the first (app's shadow gate).
func translateOnSchema(ctx context.Context, t *testing.T, where string, my *sql.Conn, schema *pgdialect.Schema, st step) *pgdialect.Translation {
	t.Helper()
	types := pgdialecttest.ParamTypes(st.args)
	mem, merr := pgdialect.TranslateTyped(st.sql, schema, types)
	cat := &pgdialect.SchemaCatalog{Ctx: ctx, Q: my}
	live, lerr := pgdialect.TranslateTyped(st.sql, cat, types)
	if cat.Err != nil {
		t.Fatalf("%s: catalog: %v", where, cat.Err)
	}
	if fmt.Sprint(merr) != fmt.Sprint(lerr) || !reflect.DeepEqual(mem, live) {
		t.Errorf("%s: the translation on the in-memory schema differs from MariaDB's:\n memory:  %+v %v\n mariadb: %+v %v", where, mem, merr, live, lerr)
	}
	return mem
}

// compare checks the two outcomes against each other and the file's
// expectation: "" both succeed, "error" both fail, "any" either.
func compare(t *testing.T, where, expect string, want, got pgdialecttest.Outcome) {
	t.Helper()
	switch {
	case expect == "error" && (want.Err == "" || got.Err == ""):
		t.Errorf("%s: want an error on both engines:\n postgres: %v\n mariadb:  %v", where, want, got)
	case expect == "" && (want.Err != "" || got.Err != ""):
		t.Errorf("%s: want success on both engines:\n postgres: %v\n mariadb:  %v", where, want, got)
	case !pgdialecttest.Same(want, got):
		t.Errorf("%s: outcomes differ:\n postgres: %v\n mariadb:  %v", where, want, got)
	}
}
