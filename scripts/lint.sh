#!/usr/bin/env bash
# gofmt, go vet and staticcheck (pinned), on the default build and the
# builds with tags: testhooks, e2e_clock, benchset.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh
find_go
unformatted=$(gofmt -l $(git ls-files '*.go'))
if [ -n "$unformatted" ]; then echo "gofmt would change:"; echo "$unformatted"; exit 1; fi
# The testhooks build differs only in the packages with files of that tag
# (an importer cannot use a hook without a tagged file of its own).
mapfile -t hooked < <(git grep -l '^//go:build.*testhooks' -- '*.go' | xargs -n1 dirname | sort -u | sed 's|^|./|')
go vet ./...
go vet -tags testhooks "${hooked[@]}"
go vet -tags e2e_clock ./internal/clockfault ./cmd/relchain
go vet -tags benchset ./test
go run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...
# the test hooks (build tag testhooks) are code too
go run honnef.co/go/tools/cmd/staticcheck@v0.8.2 -tags testhooks "${hooked[@]}"
# so is the e2e harness's clock fault (build tag e2e_clock)
go run honnef.co/go/tools/cmd/staticcheck@v0.8.2 -tags e2e_clock ./internal/clockfault ./cmd/relchain
# and the lab's long set of ./test (build tag benchset, make test-bench)
go run honnef.co/go/tools/cmd/staticcheck@v0.8.2 -tags benchset ./test
echo "lint: clean"
