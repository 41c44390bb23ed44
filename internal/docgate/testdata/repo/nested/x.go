package nested

// A nested module is not checked: "docs/sql.md#not-checked".
