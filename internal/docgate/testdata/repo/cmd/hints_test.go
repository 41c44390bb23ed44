package cmd

// Test files are not checked: "docs/sql.md#not-checked".
