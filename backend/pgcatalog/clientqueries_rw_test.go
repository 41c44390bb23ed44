package pgcatalog

import (
	"context"
	"strings"
	"testing"
)

// TestClientQueries runs catalog queries real clients send (from
// testdata/clients, captured on PostgreSQL 15) on an Engine of
// testSchema, and checks what each client reads from them.
func TestClientQueries(t *testing.T) {
	e := mustEngine(t)
	for _, c := range []struct {
		client, sql string
		args        []any
		want        string
	}{
		{"psql \\dt", `SELECT n.nspname as "Schema",
  c.relname as "Name",
  CASE c.relkind WHEN 'r' THEN 'table' WHEN 'v' THEN 'view' WHEN 'm' THEN 'materialized view' WHEN 'i' THEN 'index' WHEN 'S' THEN 'sequence' WHEN 't' THEN 'TOAST table' WHEN 'f' THEN 'foreign table' WHEN 'p' THEN 'partitioned table' WHEN 'I' THEN 'partitioned index' END as "Type",
  pg_catalog.pg_get_userbyid(c.relowner) as "Owner"
FROM pg_catalog.pg_class c
     LEFT JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
     LEFT JOIN pg_catalog.pg_am am ON am.oid = c.relam
WHERE c.relkind IN ('r','p','')
      AND n.nspname <> 'pg_catalog'
      AND n.nspname !~ '^pg_toast'
      AND n.nspname <> 'information_schema'
  AND pg_catalog.pg_table_is_visible(c.oid)
ORDER BY 1,2`, nil, "s:public s:authors s:table s:alice|s:public s:books s:table s:alice"},
		{"psql \\d authors", `SELECT c.oid::regclass::text,
  n.nspname,
  c.relname
FROM pg_catalog.pg_class c
     LEFT JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE c.relname OPERATOR(pg_catalog.~) '^(authors)$' COLLATE pg_catalog.default
  AND pg_catalog.pg_table_is_visible(c.oid)
ORDER BY 2, 3`, nil, "s:authors s:public s:authors"},
		{"psql \\d authors (columns)", `SELECT a.attname,
  pg_catalog.format_type(a.atttypid, a.atttypmod),
  (SELECT pg_catalog.pg_get_expr(d.adbin, d.adrelid, true)
   FROM pg_catalog.pg_attrdef d
   WHERE d.adrelid = a.attrelid AND d.adnum = a.attnum AND a.atthasdef),
  a.attnotnull,
  (SELECT c.collname FROM pg_catalog.pg_collation c, pg_catalog.pg_type t
   WHERE c.oid = a.attcollation AND t.oid = a.atttypid AND a.attcollation <> t.typcollation) AS attcollation,
  a.attidentity,
  a.attgenerated
FROM pg_catalog.pg_attribute a
WHERE a.attrelid = $1 AND a.attnum > 0 AND NOT a.attisdropped
ORDER BY a.attnum`, []any{"16384"}, strings.Join([]string{
			"s:id s:integer s:nextval('authors_id_seq'::regclass) b:true NULL s: s:",
			"s:name s:character varying(50) NULL b:true NULL s: s:",
			"s:email s:character varying(100) NULL b:false NULL s: s:",
			"s:rating s:numeric(10,2) s:0 b:false NULL s: s:",
			"s:created s:timestamp with time zone s:now() b:true NULL s: s:"}, "|")},
		{"sqlalchemy has_table", `select relname from pg_class c join pg_namespace n on n.oid=c.relnamespace where pg_catalog.pg_table_is_visible(c.oid) and relname='authors'`,
			nil, "s:authors"},
		{"sqlalchemy get_pk_constraint", `SELECT a.attname
                FROM pg_attribute a JOIN (
                    SELECT unnest(ix.indkey) attnum,
                           generate_subscripts(ix.indkey, 1) ord
                    FROM pg_index ix
                    WHERE ix.indrelid = 'books'::regclass AND NOT ix.indisprimary AND ix.indisunique
                    ) k ON a.attnum=k.attnum
                WHERE a.attrelid = 'books'::regclass
                ORDER BY k.ord DESC`, nil, "s:title|s:author_id"},
		{"knex hasTable", `select * from information_schema.tables where table_name = $1 and table_schema = current_schema()`,
			[]any{"books"}, "s:app s:public s:books s:BASE TABLE NULL NULL NULL NULL NULL s:YES s:NO NULL"},
		{"gorm HasTable", `SELECT count(*) FROM information_schema.tables WHERE table_schema = CURRENT_SCHEMA() AND table_name = $1 AND table_type = $2`,
			[]any{"authors", "BASE TABLE"}, "i:1"},
		{"django get_constraints", `SELECT
                c.conname,
                array(
                    SELECT attname
                    FROM unnest(c.conkey) WITH ORDINALITY cols(colid, arridx)
                    JOIN pg_attribute AS ca ON cols.colid = ca.attnum
                    WHERE ca.attrelid = c.conrelid
                    ORDER BY cols.arridx
                ),
                c.contype,
                (SELECT fkc.relname || '.' || fka.attname
                FROM pg_attribute AS fka
                JOIN pg_class AS fkc ON fka.attrelid = fkc.oid
                WHERE fka.attrelid = c.confrelid AND fka.attnum = c.confkey[1]),
                cl.reloptions
            FROM pg_constraint AS c
            JOIN pg_class AS cl ON c.conrelid = cl.oid
            WHERE cl.relname = 'books' AND pg_catalog.pg_table_is_visible(cl.oid) ORDER BY 1`, nil,
			"s:books_author_id_fkey s:{author_id} s:f s:authors.id NULL|s:books_author_id_title_key s:{author_id,title} s:u NULL NULL|s:books_pkey s:{id} s:p NULL NULL"},
	} {
		res, err := e.Query(context.Background(), c.sql, c.args)
		if err != nil {
			t.Errorf("%s: %v", c.client, err)
			continue
		}
		if got := rowsText(res.Rows); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.client, got, c.want)
		}
	}
}
