package mattn

import (
	"testing"

	_ "github.com/mattn/go-sqlite3"
	"sqlitebench/sqlbench"
)

func dsn(p string) string { return "file:" + p }

func BenchmarkBlock(b *testing.B)       { sqlbench.Block(b, "sqlite3", dsn) }
func BenchmarkPointSelect(b *testing.B) { sqlbench.PointSelect(b, "sqlite3", dsn) }
func BenchmarkPrepare(b *testing.B)     { sqlbench.Prepare(b, "sqlite3", dsn) }
