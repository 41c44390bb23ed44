package main

import (
	"strings"
	"testing"
)

func TestCostRefusesBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--workload", "tpcc"}, // smallbank, neworder or ycsb
		{"--workload", "ycsb", "--lanes", "-1"},
		{"--backend", "postgres"}, // no --dsn-template
		{"--backend", "postgres", "--dsn-template", "postgres://u@127.0.0.1:1/db"}, // no {node}
		{"--backend", "oracle", "--dsn-template", "x/{node}"},
	} {
		root := benchCmd()
		root.SetArgs(append([]string{"cost", "--quiet"}, args...))
		root.SetOut(&strings.Builder{})
		if err := root.Execute(); err == nil {
			t.Errorf("cost %v accepted", args)
		}
	}
}
