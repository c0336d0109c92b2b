#!/usr/bin/env bash
# Installs kubectl-crdlint for the GitHub Action (action.yml), built from the
# action's own source: nothing is downloaded but Go modules.
#
#   install.sh prepare   print the cache key and directory (GITHUB_OUTPUT)
#   install.sh install   put the binary in that directory (restored from the
#                        cache, or built with `go build`), add it to PATH
#
# Environment: GITHUB_ACTION_PATH (the action's source), RUNNER_TEMP,
# RUNNER_OS, RUNNER_ARCH, GITHUB_OUTPUT, GITHUB_PATH as the runner sets them;
# CRDLINT_ACTION_REF (github.action_ref, stamped as the version),
# CRDLINT_GO_VERSION (the go-version input, part of the key),
# CRDLINT_ACTION_DIR (install: the directory from prepare).
# CRDLINT_ACTION_BINARY=/path/to/kubectl-crdlint installs that file instead
# of building (tests, and running the scripts by hand); it is never cached.
#
# Written for bash 3.2 (macOS) and Git Bash (Windows) as well as Linux.
set -euo pipefail

die() {
  echo "::error title=kubectl-crdlint action::$*"
  exit 2
}

# sha256 prints the SHA-256 of stdin, with whichever tool the runner has.
sha256() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum | cut -d' ' -f1
  else
    shasum -a 256 | cut -d' ' -f1
  fi
}

# source_hash hashes every file of the action's source (names and contents),
# so that the key changes with anything the build could read, embedded files
# included. A moving ref such as v1 therefore never restores a stale binary.
source_hash() {
  (
    cd "$GITHUB_ACTION_PATH"
    local sum=sha256sum
    command -v sha256sum >/dev/null 2>&1 || sum="shasum -a 256"
    # shellcheck disable=SC2086 # $sum is a command and its flags.
    find . -type f ! -path ./.git ! -path './.git/*' -print0 | LC_ALL=C sort -z | xargs -0 $sum | sha256
  )
}

binary_name() {
  case "${RUNNER_OS:-}" in
  Windows) echo kubectl-crdlint.exe ;;
  *) echo kubectl-crdlint ;;
  esac
}

prepare() {
  : "${GITHUB_ACTION_PATH:?is not set: run this from the action or set it to the source}"
  : "${RUNNER_TEMP:?is not set}"
  local hash ref go
  hash=$(source_hash)
  # The ref is stamped into the binary (kubectl-crdlint version), so the
  # same source under another ref is another binary. Cache keys may not
  # contain commas; keep them readable otherwise.
  ref=$(printf '%s' "${CRDLINT_ACTION_REF:-local}" | tr -c 'A-Za-z0-9._-' '_')
  go=$(printf '%s' "${CRDLINT_GO_VERSION:-go.mod}" | tr -c 'A-Za-z0-9._-' '_')
  {
    echo "key=kubectl-crdlint-${RUNNER_OS:-unknown}-${RUNNER_ARCH:-unknown}-go_${go}-${ref}-${hash}"
    echo "dir=${RUNNER_TEMP}/kubectl-crdlint/${hash:0:16}"
  } >>"${GITHUB_OUTPUT:-/dev/stdout}"
}

# build compiles the action's source as the release does (.goreleaser.yaml):
# static, -trimpath, stripped, the ref as the version.
build() {
  local out=$1 ref=${CRDLINT_ACTION_REF:-} version=dev commit=""
  case "$ref" in
  v[0-9]*) version=$ref ;;
  *) [[ "$ref" =~ ^[0-9a-f]{40}$ ]] && commit=$ref ;;
  esac
  local pkg=github.com/kubectl-crdlint/kubectl-crdlint/internal/version
  echo "building kubectl-crdlint ${ref:-(no ref)} from $GITHUB_ACTION_PATH with $(go version)"
  # The job's own Go settings are for the user's code, not this build: a
  # GOOS for cross-compiling would give a binary this runner cannot run,
  # GOFLAGS=-mod=vendor or a go.work would not fit this module.
  (
    cd "$GITHUB_ACTION_PATH"
    GOOS='' GOARCH='' GOFLAGS='' GOWORK=off CGO_ENABLED=0 go build -trimpath \
      -ldflags "-s -w -X $pkg.Version=$version -X $pkg.Commit=$commit" \
      -o "$out" ./cmd/kubectl-crdlint
  )
}

install() {
  local dir=${CRDLINT_ACTION_DIR:?is not set: run prepare first}
  local bin built=false
  bin="$dir/$(binary_name)"
  mkdir -p "$dir"
  if [[ -n "${CRDLINT_ACTION_BINARY:-}" ]]; then
    [[ -f "$CRDLINT_ACTION_BINARY" ]] || die "CRDLINT_ACTION_BINARY=$CRDLINT_ACTION_BINARY is not a file"
    cp "$CRDLINT_ACTION_BINARY" "$bin.tmp"
    chmod 0755 "$bin.tmp"
    mv -f "$bin.tmp" "$bin"
    echo "installed $CRDLINT_ACTION_BINARY (CRDLINT_ACTION_BINARY), not built"
  elif [[ -x "$bin" ]]; then
    echo "kubectl-crdlint restored from the cache"
  else
    command -v go >/dev/null 2>&1 || die "go is not on PATH to build kubectl-crdlint (actions/setup-go runs on a cache miss)"
    # Build beside the target and rename: an interrupted build never leaves
    # a binary behind for the cache to save.
    build "$bin.tmp" || die "go build of kubectl-crdlint failed"
    mv -f "$bin.tmp" "$bin"
    built=true
  fi
  # Prove it runs before anything depends on it (and the cache saves it).
  "$bin" version || die "$bin does not run"
  echo "$dir" >>"${GITHUB_PATH:-/dev/null}"
  {
    echo "binary=$bin"
    echo "built=$built"
  } >>"${GITHUB_OUTPUT:-/dev/stdout}"
}

# Sourced (verdicts.sh uses its functions), it runs nothing.
if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
  case "${1:-}" in
  prepare) prepare ;;
  install) install ;;
  *)
    echo "usage: install.sh prepare|install" >&2
    exit 2
    ;;
  esac
fi
