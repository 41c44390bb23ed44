package cmd

// The hints below are the fixture of docgate's test.
var hints = []string{
	"refused (docs/sql.md#what-the-gate-refuses)",
	"refused (docs/sql.md#what-the-gate-forbids)",
	"see README.md#fixture",
	"see RELIABILITY.md",
	"old form (README: What the gate refuses)",
}
