#!/usr/bin/env bash
# Runs every fuzz target for a time each (the first argument, default
# 10s) in some packages (the second, default ./...), seeded from
# testdata/fuzz and the corpus. A crasher is written to the package's
# testdata/fuzz/FuzzX/: commit it as a regression case once fixed. Used
# by .ci/run and `make fuzz`.
#
# Go 1.26's fuzzing coordinator can fail a target with a bare "context
# deadline exceeded" when -fuzztime expires while a worker is mid-input
# on a busy machine (golang/go#75804, fixed in Go 1.27): no input fails,
# none is written. That failure alone, and only it, is run once more;
# anything else — a failing input, a panic, a second deadline — fails.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${1:-10s}
pkgs=${2:-./...}
fuzzlog=$(mktemp)
trap 'rm -f "$fuzzlog"' EXIT
for pkg in $(go list "$pkgs"); do
  for t in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true); do
    echo "== fuzz $pkg $t ($fuzztime)"
    if go test -run '^$' -fuzz "^$t\$" -fuzztime "$fuzztime" "$pkg" 2>&1 | tee "$fuzzlog"; then
      continue
    fi
    if grep -q 'context deadline exceeded' "$fuzzlog" && ! grep -q -e 'Failing input written' -e 'panic:' -e '_test.go:[0-9]*:' "$fuzzlog"; then
      echo "== fuzz $pkg $t: the coordinator's deadline race (golang/go#75804), once more"
      go test -run '^$' -fuzz "^$t\$" -fuzztime "$fuzztime" "$pkg"
    else
      exit 1
    fi
  done
done
