#!/usr/bin/env bash
# Builds every supported minor's engine and the main binary into DIR
# (default: a temporary directory), runs each older minor's differential
# tests against its own libraries (the in-repo corpus, the pkg/crd and
# pkg/lint tests that compare with the server's libraries), then the
# version-sensitive cases and the range run of test/minors with the built
# engines. CI runs it (.ci/run); docs/versions.md gives its time.
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=${1:-$(mktemp -d)}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
start=$SECONDS
# The minors and their patches, from the one table (internal/kubeminor).
minors=$(sed -n 's/^\t{"\(1\.[0-9]*\)", "1\.[0-9.]*"},$/\1/p' internal/kubeminor/kubeminor.go)
newest=$(echo "$minors" | tail -1)
for m in $minors; do
  if [ "$m" = "$newest" ]; then
    CGO_ENABLED=0 go build -trimpath -o "$dir/kubectl-crdlint" ./cmd/kubectl-crdlint
  else
    CGO_ENABLED=0 go build -trimpath -modfile="hack/minors/k8s$m.mod" -tags="k8s$m" -o "$dir/crdlint-k8s$m" ./cmd/kubectl-crdlint
  fi
  echo "== built the Kubernetes $m engine ($((SECONDS - start)) s)"
done
# The differential tests of each older minor, against its own libraries.
diff_tests='Corpus|Differential|Agreement|^TestValidateLeavesV1$|^TestCELCostsFromInternal$|^TestExplain'
for m in $minors; do
  [ "$m" = "$newest" ] && continue
  CRDLINT_MINOR_BUILD=1 go test -modfile="hack/minors/k8s$m.mod" -tags="k8s$m" -run "$diff_tests" ./pkg/engine ./pkg/crd ./pkg/lint ./internal/kubeminor
  echo "== Kubernetes $m differential tests done ($((SECONDS - start)) s)"
done
CRDLINT_ENGINE_DIR="$dir" go test -count=1 ./test/minors
echo "== every minor built and tested in $((SECONDS - start)) s"
