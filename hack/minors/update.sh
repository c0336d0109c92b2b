#!/usr/bin/env bash
# Writes hack/minors/k8sMINOR.mod and .sum: the dependency set that
# kubectl-crdlint's Kubernetes MINOR engine is built with, from the same
# source tree as the main binary (go build -modfile=hack/minors/k8sMINOR.mod
# -tags k8sMINOR ./cmd/kubectl-crdlint). PATCH is that minor's newest
# patch release, e.g.:
#
#   hack/minors/update.sh 1.33 1.33.13
#
# Only the k8s.io modules of the patch are asked for; everything else is
# what they require (go get resolves each import of the command to the
# version those modules pin, or the newest where none does), so the
# server's libraries (apiextensions-apiserver, apiserver, apimachinery,
# client-go, component-base, kube-openapi, cel-go) are exactly the
# release's. TestModfiles (internal/kubeminor) checks that no pin was
# raised. docs/versions.md says when to run it.
set -euo pipefail
minor=${1:?usage: update.sh MINOR PATCH}
patch=${2:?usage: update.sh MINOR PATCH}
cd "$(dirname "$0")/../.."
mod=hack/minors/k8s$minor.mod
v=v0.${patch#1.}
rm -f "$mod" "${mod%.mod}.sum"
printf 'module github.com/kubectl-crdlint/kubectl-crdlint\n\ngo %s\n' "$(go mod edit -json | sed -n 's/^[[:space:]]*"Go": "\(.*\)",*$/\1/p')" >"$mod"
mods=()
for m in apiextensions-apiserver apiserver apimachinery client-go api component-base cli-runtime kube-aggregator kubelet kube-proxy kube-scheduler; do
  mods+=("k8s.io/$m@$v")
done
go get -modfile="$mod" "${mods[@]}"
# The command and the packages whose tests run per minor (their test
# imports too).
go get -modfile="$mod" -t ./cmd/kubectl-crdlint ./pkg/crd ./pkg/lint ./internal/kubeminor
