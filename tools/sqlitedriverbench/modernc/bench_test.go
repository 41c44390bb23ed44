package modernc

import (
	"testing"

	_ "modernc.org/sqlite"
	"sqlitebench/sqlbench"
)

func dsn(p string) string { return "file:" + p }

func BenchmarkBlock(b *testing.B)       { sqlbench.Block(b, "sqlite", dsn) }
func BenchmarkPointSelect(b *testing.B) { sqlbench.PointSelect(b, "sqlite", dsn) }
func BenchmarkPrepare(b *testing.B)     { sqlbench.Prepare(b, "sqlite", dsn) }
