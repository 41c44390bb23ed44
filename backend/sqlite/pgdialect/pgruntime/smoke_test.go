package pgruntime_test

import "testing"

func TestSmoke(t *testing.T) {
	d := mustOpen(t)
	d.mustRun("CREATE TABLE t (id int PRIMARY KEY, name varchar(5) NOT NULL, ok bool DEFAULT true, at timestamptz, f float8)")
	d.mustRun("INSERT INTO t (id, name, at, f) VALUES (1, 'ab', '2026-01-02 03:04:05+02', 1.5), (2, 'cd', NULL, NULL)")
	r := d.mustRun("SELECT id, name, ok, at, f, id + 1, name || 'x' FROM t ORDER BY id DESC")
	t.Log(r.text(), r.cols)
}
