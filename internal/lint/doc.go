// Package lint holds tests that keep the architecture true: which packages
// may depend on which (after pebble's internal/lint).
package lint
