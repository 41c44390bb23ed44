package mysql

import (
	"testing"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/sqlcheck"
)

// The schema judge caches translations, never a verdict that depends on
// the arguments or on a schema that changed: a refusal is judged again
// after the DDL that makes the statement valid, and a cached translation
// still checks each statement's own arguments.
func TestSchemaJudgeCachesOnlyWhatHolds(t *testing.T) {
	j := NewSchemaJudge()
	const insert = "INSERT INTO a (id, n) VALUES ($1, $2)"
	if err := j.Judge(insert, []any{int64(1), int64(2)}, sqlcheck.Env{}); backend.AsError(err) == nil || backend.AsError(err).SQLState != "42P01" {
		t.Fatalf("before CREATE TABLE: %v, want 42P01", err)
	}
	if err := j.Apply("CREATE TABLE a (id int8 PRIMARY KEY, n int4)", nil); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ { // translated, then from the cache
		if err := j.Judge(insert, []any{int64(1), int64(2)}, sqlcheck.Env{}); err != nil {
			t.Fatalf("judgement %d after CREATE TABLE: %v", i, err)
		}
	}
	if err := j.Judge(insert, []any{int64(1), "x"}, sqlcheck.Env{}); backend.AsError(err) == nil || backend.AsError(err).SQLState != "22P02" {
		t.Fatalf("a text argument for int4 through the cached translation: %v, want 22P02", err)
	}
	if err := j.Apply("DROP TABLE a", nil); err != nil {
		t.Fatal(err)
	}
	if err := j.Judge(insert, []any{int64(1), int64(2)}, sqlcheck.Env{}); backend.AsError(err) == nil || backend.AsError(err).SQLState != "42P01" {
		t.Fatalf("after DROP TABLE: %v, want 42P01 (the cache emptied)", err)
	}
}
