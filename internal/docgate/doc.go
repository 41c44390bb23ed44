// Package docgate checks that the documentation's links resolve, so that a
// reader who follows one, from a page or from an error message, lands on the
// section it names.
//
// Two kinds of reference are checked against the headings of the pages they
// point to (GitHub's anchors, see Slug):
//
//   - every relative link of a markdown page (README.md, docs/*.md, …): the
//     file it names exists and, for a markdown file, so does its anchor;
//   - every hint in non-test Go code that names a page of the repository's
//     documentation (docs/PAGE.md#anchor, README.md#anchor, …), as error
//     messages do for the reader to look up. A hint in the old form
//     "README: Section name" is reported too: it cannot be checked.
//
// The package's test runs both checks on the repository.
package docgate
