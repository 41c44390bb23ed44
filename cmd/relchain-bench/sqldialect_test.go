package main

import (
	"strings"
	"testing"
)

// The workloads write the network's SQL dialect: --sql-dialect when the
// backend speaks it, the backend's own otherwise; a translated dialect has
// no raw baseline, and one the backend cannot speak is refused.
func TestNetworkSQLDialect(t *testing.T) {
	for _, c := range []struct {
		backend, sql string
		baseline     bool
		want, err    string
	}{
		{backend: "sqlite", want: "sqlite"},
		{backend: "sqlite", sql: "sqlite", want: "sqlite"},
		{backend: "sqlite", sql: "postgres", want: "postgres"},
		{backend: "postgres", want: "postgres"},
		{backend: "sqlite", sql: "mysql", err: "speaks sqlite, postgres"},
		{backend: "mysql", sql: "postgres", want: "postgres"},
		{backend: "mysql", sql: "sqlite", err: "speaks mysql, postgres"},
		{backend: "sqlite", sql: "postgres", baseline: true, err: "leave --baseline out"},
		{backend: "sqlite", baseline: true, want: "sqlite"},
	} {
		f := &benchFlags{sqlDialect: c.sql, baseline: c.baseline}
		f.net.backend = c.backend
		got, err := f.networkSQLDialect()
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s --sql-dialect %q baseline %v: %q, %v; want an error containing %q", c.backend, c.sql, c.baseline, got, err, c.err)
		case c.err == "" && (err != nil || got != c.want):
			t.Errorf("%s --sql-dialect %q baseline %v: %q, %v; want %q", c.backend, c.sql, c.baseline, got, err, c.want)
		}
	}
}
