#!/usr/bin/env bash
# hack/compare/run.sh OLD_BINARY NEW_BINARY [CASES]
#
# Runs every command line of CASES (default hack/compare/cases.txt) with both
# builds from the repository's root and reports each line whose stdout,
# stderr or exit code differ. A refactoring that must not change behaviour
# passes with "N cases, 0 differ". Each build gets a cache directory of its
# own; "warm:" lines run twice on it and compare the second run.
set -uo pipefail
old=$(realpath "$1"); new=$(realpath "$2")
cd "$(dirname "$0")/../.."
cases=${3:-hack/compare/cases.txt}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
n=0; bad=0
run() { # bin cachedir stdin args...
  local bin=$1 cache=$2 in=$3; shift 3
  XDG_CACHE_HOME=$cache NO_COLOR=1 "$bin" "$@" <"$in"
  echo "exit $?" >&2
}
while IFS= read -r line; do
  case "$line" in ''|'#'*) continue ;; esac
  n=$((n+1)); warm=0; in=/dev/null
  if [[ $line == warm:* ]]; then warm=1; line=${line#warm: }; fi
  if [[ $line == stdin\ * ]]; then in=${line#stdin }; in=${in%%:*}; line=${line#*: }; fi
  read -r -a args <<<"$line"
  for side in old new; do
    bin=$old; [ $side = new ] && bin=$new
    cache=$work/cache-$side-$n; mkdir -p "$cache"
    [ $warm = 1 ] && run "$bin" "$cache" "$in" "${args[@]}" >/dev/null 2>&1
    run "$bin" "$cache" "$in" "${args[@]}" >"$work/$side.out" 2>"$work/$side.err"
  done
  if ! cmp -s "$work/old.out" "$work/new.out" || ! cmp -s "$work/old.err" "$work/new.err"; then
    bad=$((bad+1)); echo "DIFFERS: $line"
    diff "$work/old.out" "$work/new.out" | head -${COMPARE_LINES:-10}
    diff "$work/old.err" "$work/new.err" | head -${COMPARE_LINES:-10}
  fi
done <"$cases"
echo "$n cases, $bad differ"
[ $bad = 0 ]
