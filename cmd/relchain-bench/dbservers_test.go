package main

import (
	"context"
	"strings"
	"testing"
)

func TestPaperMySQLTakesOffOrATemplateWithNode(t *testing.T) {
	ctx := context.Background()
	if tmpl, stop, err := paperMySQL(ctx, "off", t.TempDir()); err != nil || tmpl != "" {
		t.Fatalf("off: %q, %v", tmpl, err)
	} else {
		stop()
	}
	const given = "root@tcp(127.0.0.1:3307)/paper_{node}"
	if tmpl, _, err := paperMySQL(ctx, given, t.TempDir()); err != nil || tmpl != given {
		t.Fatalf("template: %q, %v", tmpl, err)
	}
	if _, _, err := paperMySQL(ctx, "root@tcp(127.0.0.1:3307)/paper", t.TempDir()); err == nil || !strings.Contains(err.Error(), "{node}") {
		t.Fatalf("a template without {node}: %v", err)
	}
}
