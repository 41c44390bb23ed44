package sqlite

// ReadFunctionAllowed reports whether the read path's allowlist holds
// function name, for tests only.
func ReadFunctionAllowed(name string) bool { return readFunction(name) == "" }
