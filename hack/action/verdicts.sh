#!/usr/bin/env bash
# Names the verdict cache of the GitHub Action (action.yml): the directory
# kubectl-crdlint keeps what it judged in (--cache-dir), and the actions/cache
# key it is saved under and restored from, so that the run on a pull request
# starts from what the previous commit's run judged and judges only the files
# that changed (docs/performance.md, "CI with the Action's cache").
#
#   verdicts.sh prepare   print dir, key and restore-keys (GITHUB_OUTPUT)
#
# The key is the runner's OS and architecture, the tool (the binary's bytes,
# path and modification time: what the cache's entries are keyed by), the
# invocation (working directory, paths, crds, args), the CRDs' content, and
# the run: every run saves a cache of its own (a key cannot be saved twice),
# and restores the newest one of the same tool and invocation, the same
# CRDs first. The key only chooses what to restore: every entry is keyed by
# what it depends on, so an entry made with other CRDs or files is never
# used for these, only not found.
#
# Environment: CRDLINT_BINARY (install.sh's output), INPUT_PATHS, INPUT_CRDS,
# INPUT_ARGS, INPUT_WORKING_DIRECTORY as run.sh reads them; RUNNER_TEMP,
# RUNNER_OS, RUNNER_ARCH, GITHUB_RUN_ID, GITHUB_RUN_ATTEMPT, GITHUB_OUTPUT as
# the runner sets them.
#
# Written for bash 3.2 (macOS) and Git Bash (Windows) as well as Linux.
set -euo pipefail

# split_list, and sha256: neither script runs anything when sourced.
# shellcheck source=run.sh
source "$(dirname "${BASH_SOURCE[0]}")/run.sh"
# shellcheck source=install.sh
source "$(dirname "${BASH_SOURCE[0]}")/install.sh"

# mtime prints a file's modification time in seconds (GNU and BSD tools).
mtime() {
  date -r "$1" +%s 2>/dev/null || stat -c %Y "$1" 2>/dev/null || stat -f %m "$1"
}

# tool_hash names the binary as the cache's entries do (a build that is not
# a release is told from another by its path, size and modification time).
tool_hash() {
  local bin=$1
  [[ -f "$bin" ]] || bin=$(command -v "$bin") || return 1
  {
    printf '%s\n' "$bin"
    mtime "$bin"
    sha256 <"$bin"
  } | sha256
}

# crd_hash hashes the names and contents of the files under the arguments
# that mention CustomResourceDefinition (the CRDs, and the few files that
# only name the word), and of the configuration, which may list more CRDs;
# a URL counts as its text. Files are found roughly as the linter finds
# them: the hash only chooses which cache to restore first.
crd_hash() {
  local sum=sha256sum p
  command -v sha256sum >/dev/null 2>&1 || sum="shasum -a 256"
  {
    for p in "$@"; do
      case "$p" in
      *://*) printf 'url %s\n' "$p" ;;
      esac
    done
    for p in "$@"; do
      case "$p" in
      *://* | -) ;;
      *)
        [[ -e "$p" ]] || continue
        find "$p" -name .git -prune -o -type f \( -name '*.yaml' -o -name '*.yml' -o -name '*.json' \) -print0 2>/dev/null || true
        ;;
      esac
    done | { xargs -0 grep -l --null CustomResourceDefinition 2>/dev/null || true; } | LC_ALL=C sort -z -u |
      {
        # shellcheck disable=SC2086 # $sum is a command and its flags.
        xargs -0 $sum 2>/dev/null || true
      }
    for p in .crdlint.yaml .crdlint.yml; do
      [[ ! -f "$p" ]] || printf '%s %s\n' "$p" "$(sha256 <"$p")"
    done
  } | sha256
}

prepare() {
  : "${RUNNER_TEMP:?is not set}"
  local wd=${INPUT_WORKING_DIRECTORY:-.}
  # run.sh says what is wrong with the inputs; no cache is the answer here.
  cd "$wd" 2>/dev/null || return 0
  local paths=() crds=()
  split_list "${INPUT_PATHS-.}" || return 0
  paths=(${ITEMS[@]+"${ITEMS[@]}"})
  split_list "${INPUT_CRDS:-}" || return 0
  crds=(${ITEMS[@]+"${ITEMS[@]}"})

  local tool invocation crdsum prefix dir
  tool=$(tool_hash "${CRDLINT_BINARY:-kubectl-crdlint}") || return 0
  invocation=$(printf '%s\n' "$wd" "${INPUT_PATHS-.}" "${INPUT_CRDS:-}" "${INPUT_ARGS:-}" | sha256)
  crdsum=$(crd_hash ${paths[@]+"${paths[@]}"} ${crds[@]+"${crds[@]}"})
  prefix="kubectl-crdlint-verdicts-${RUNNER_OS:-unknown}-${RUNNER_ARCH:-unknown}-${tool:0:16}-${invocation:0:12}-"
  # The same path on every run: actions/cache restores only into the
  # path it saved from. Private, as the linter requires of its cache.
  dir="${RUNNER_TEMP}/kubectl-crdlint-cache"
  mkdir -p "$dir"
  chmod 700 "$dir"
  {
    echo "dir=$dir"
    echo "key=${prefix}${crdsum:0:16}-${GITHUB_RUN_ID:-0}-${GITHUB_RUN_ATTEMPT:-0}"
    echo "restore-keys<<CRDLINT_EOF"
    echo "${prefix}${crdsum:0:16}-"
    echo "${prefix}"
    echo "CRDLINT_EOF"
  } >>"${GITHUB_OUTPUT:-/dev/stdout}"
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
  case "${1:-}" in
  prepare) prepare ;;
  *)
    echo "usage: verdicts.sh prepare" >&2
    exit 2
    ;;
  esac
fi
