#!/usr/bin/env bash
# Runs `kubectl-crdlint check` for the GitHub Action (action.yml): builds the
# command line from the inputs, writes annotations to the log or a SARIF
# file, sets the step outputs and a job summary, and exits with the
# linter's exit code (0 clean, 1 findings at or above fail-on, 2 error).
#
# Inputs arrive as environment variables, never spliced into the script:
#   INPUT_PATHS, INPUT_CRDS   one per line, or separated by blanks on one line
#   INPUT_ARGS                split as a shell would, without expansions
#   INPUT_OUTPUT              annotations | sarif
#   INPUT_SARIF_FILE, INPUT_FAIL_ON, INPUT_WORKING_DIRECTORY
#   CRDLINT_BINARY            the binary (install.sh's output), else PATH
#   CRDLINT_VERDICTS_DIR      the verdict cache (verdicts.sh), when cached
# and GITHUB_WORKSPACE, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, RUNNER_TEMP from
# the runner. Without them (by hand) outputs and summary are dropped.
#
# Written for bash 3.2 (macOS) and Git Bash (Windows) as well as Linux.
set -euo pipefail

# fail reports a problem with the inputs as the linter reports one: exit 2.
fail() {
  # Escaped: the message may quote an input, and a newline in it must not
  # start a workflow command of its own.
  echo "::error title=kubectl-crdlint action::$(escape_data "$*")"
  write_outputs 2 "" "" ""
  summary_error "$*"
  exit 2
}

# split_list sets ITEMS to the items of $1. Several lines: one item per
# line, blanks around it trimmed, empty lines ignored (a path may contain
# spaces). One line: items separated by blanks. Never globbed or expanded.
split_list() {
  ITEMS=()
  local value=$1 line
  case "$value" in
  *$'\n'*)
    while IFS= read -r line || [[ -n "$line" ]]; do
      line=${line%$'\r'}
      line=${line#"${line%%[![:space:]]*}"}
      line=${line%"${line##*[![:space:]]}"}
      [[ -z "$line" ]] || ITEMS+=("$line")
    done <<<"$value"
    ;;
  *)
    case "$value" in
    *\"* | *\'*) return 1 ;; # quotes would be kept literally: a surprise
    esac
    read -r -a ITEMS <<<"$value" || true
    ;;
  esac
}

# split_words sets ITEMS to the words of $1 as a shell splits a command
# line, but expanding nothing: blanks and newlines separate words, '...'
# keeps everything, "..." keeps everything but \" and \\, and \ outside
# quotes takes the next character literally. Returns 1 on an open quote.
split_words() {
  ITEMS=()
  local s=$1 word="" have=false quote="" c i n=${#1}
  for ((i = 0; i < n; i++)); do
    c=${s:i:1}
    if [[ "$quote" == "'" ]]; then
      if [[ "$c" == "'" ]]; then quote=""; else word+=$c; fi
    elif [[ "$quote" == '"' ]]; then
      if [[ "$c" == '"' ]]; then
        quote=""
      elif [[ "$c" == "\\" ]] && ((i + 1 < n)) && [[ "${s:i+1:1}" == '"' || "${s:i+1:1}" == "\\" ]]; then
        i=$((i + 1))
        word+=${s:i:1}
      else
        word+=$c
      fi
    else
      case "$c" in
      ' ' | $'\t' | $'\n' | $'\r')
        if $have; then ITEMS+=("$word"); fi
        word="" have=false
        ;;
      "'" | '"') quote=$c have=true ;;
      "\\")
        if ((i + 1 < n)); then
          i=$((i + 1))
          word+=${s:i:1}
          have=true
        fi
        ;;
      *) word+=$c have=true ;;
      esac
    fi
  done
  [[ -z "$quote" ]] || return 1
  if $have; then ITEMS+=("$word"); fi
}

# write_outputs EXIT ERRORS WARNINGS SARIF sets the step's outputs.
write_outputs() {
  {
    echo "exit-code=$1"
    echo "errors=$2"
    echo "warnings=$3"
    echo "sarif-file=$4"
  } >>"${GITHUB_OUTPUT:-/dev/null}"
}

# list_entries prints the names of the verdict cache's entries in $1.
list_entries() {
  [[ -d "$1/verdicts" ]] || return 0
  (cd "$1/verdicts" && find . -type f ! -name '.tmp-*' -print) | LC_ALL=C sort
}

summary_error() {
  {
    echo "### kubectl-crdlint"
    echo
    echo "kubectl-crdlint could not check the files:"
    echo
    echo '```'
    printf '%s\n' "$1"
    echo '```'
  } >>"${GITHUB_STEP_SUMMARY:-/dev/null}"
}

# escape_data escapes a workflow command's message as @actions/core does.
escape_data() {
  local s=$1
  s=${s//%/%25}
  s=${s//$'\r'/%0D}
  s=${s//$'\n'/%0A}
  printf '%s' "$s"
}

# repo_prefix prints the working directory relative to GITHUB_WORKSPACE
# ("" at its root or outside it). Findings name files relative to where the
# linter runs, but annotations and code scanning read them relative to the
# repository root.
repo_prefix() {
  [[ -n "${GITHUB_WORKSPACE:-}" ]] || return 0
  local ws here
  ws=$(cd "$GITHUB_WORKSPACE" && pwd -P) || return 0
  here=$(pwd -P)
  case "$here" in
  "$ws") ;;
  "$ws"/*) printf '%s' "${here#"$ws"/}" ;;
  *) echo "::warning title=kubectl-crdlint action::working-directory is outside GITHUB_WORKSPACE: annotations name files relative to it" >&2 ;;
  esac
}

# rebase_github prefixes the file= of each annotation read on stdin with
# the directory $1 (already relative to the repository root), resolving
# leading ../ against it. Absolute names and <stdin> are left alone.
rebase_github() {
  if [[ -z "$1" ]]; then
    cat
    return
  fi
  LC_ALL=C awk -v prefix="$1" '
    function esc(s) { gsub(/%/, "%25", s); gsub(/:/, "%3A", s); gsub(/,/, "%2C", s); return s }
    BEGIN { n = split(prefix, seg, "/") }
    /^::(error|warning|notice) file=/ {
      start = index($0, "file=") + 5
      rest = substr($0, start)
      end = match(rest, /(,|::)/)
      file = end ? substr(rest, 1, end - 1) : rest
      tail = end ? substr(rest, end) : ""
      if (file !~ /^\// && file !~ /^[A-Za-z]%3A/ && file != "<stdin>") {
        k = n
        while (k > 0 && substr(file, 1, 3) == "../") { file = substr(file, 4); k-- }
        p = ""
        for (j = 1; j <= k; j++) p = p esc(seg[j]) "/"
        file = p file
      }
      print substr($0, 1, start - 1) file tail
      next
    }
    { print }'
}

# rebase_sarif does the same for the artifact URIs of a SARIF log read on
# stdin: "uri" is the only key by that name that the renderer writes, and a
# message cannot contain the sequence "uri": unescaped.
rebase_sarif() {
  if [[ -z "$1" ]]; then
    cat
    return
  fi
  LC_ALL=C awk -v prefix="$1" '
    function pct(s,   out, i, c) {
      out = ""
      for (i = 1; i <= length(s); i++) {
        c = substr(s, i, 1)
        if (c ~ /[A-Za-z0-9._~\/-]/) out = out c
        else out = out sprintf("%%%02X", ord[c])
      }
      return out
    }
    BEGIN {
      for (i = 1; i < 256; i++) ord[sprintf("%c", i)] = i
      n = split(prefix, seg, "/")
    }
    {
      line = $0; outl = ""
      while (match(line, /"uri": *"[^"]*"/)) {
        whole = substr(line, RSTART, RLENGTH)
        head = substr(whole, 1, index(substr(whole, 6), "\"") + 5)
        uri = substr(whole, length(head) + 1, length(whole) - length(head) - 1)
        # Absolute file: URIs and <stdin> (which Go escapes as \u003c) stay.
        if (uri !~ /^[A-Za-z][A-Za-z0-9+.-]*:/ && uri !~ /^(<|\\u003c)/) {
          while (substr(uri, 1, 2) == "./") uri = substr(uri, 3)
          k = n
          while (k > 0 && substr(uri, 1, 3) == "../") { uri = substr(uri, 4); k-- }
          p = ""
          for (j = 1; j <= k; j++) p = p pct(seg[j]) "/"
          uri = p uri
        }
        outl = outl substr(line, 1, RSTART - 1) head uri "\""
        line = substr(line, RSTART + RLENGTH)
      }
      print outl line
    }'
}

# findings_table prints the findings of the annotations in file $1 as a
# Markdown table, at most $2 rows: GitHub shows only the first few
# annotations of a step on the pull request, the summary shows more.
findings_table() {
  LC_ALL=C awk -v max="$2" '
    function unesc(s) { gsub(/%0D/, "", s); gsub(/%0A/, " ", s); gsub(/%3A/, ":", s); gsub(/%2C/, ",", s); gsub(/%25/, "%", s); return s }
    function cell(s) { gsub(/\|/, "\\|", s); gsub(/</, "\\&lt;", s); return s }
    /^::(error|warning|notice) file=/ {
      n++
      if (n > max) next
      if (n == 1) { print "| severity | where | rule | finding |"; print "| --- | --- | --- | --- |" }
      level = substr($0, 3, index($0, " ") - 3)
      props = substr($0, index($0, " ") + 1)
      msg = substr(props, index(props, "::") + 2)
      props = substr(props, 1, index(props, "::") - 1)
      file = ""; line = ""; rule = ""
      k = split(props, kv, ",")
      for (i = 1; i <= k; i++) {
        eq = index(kv[i], "=")
        key = substr(kv[i], 1, eq - 1); val = unesc(substr(kv[i], eq + 1))
        if (key == "file") file = val
        else if (key == "line") line = val
        else if (key == "title") rule = val
      }
      where = line == "" ? file : file ":" line
      printf "| %s | `%s` | %s | %s |\n", level, cell(where), cell(rule), cell(unesc(msg))
    }
    END { if (n > max) printf "\n%d more findings are in the log.\n", n - max }' "$1"
}

# count_github prints "errors warnings" of the annotations in file $1.
count_github() {
  awk '/^::error /{e++} /^::warning /{w++} END{printf "%d %d", e, w}' "$1"
}

# count_sarif prints "errors warnings" of the unsuppressed results of the
# SARIF log $1, or nothing without jq (preinstalled on GitHub's runners).
count_sarif() {
  command -v "${CRDLINT_JQ:-jq}" >/dev/null 2>&1 || return 0
  "${CRDLINT_JQ:-jq}" -r '[.runs[].results[] | select((.suppressions // []) | length == 0) | .level]
    | "\(map(select(. == "error")) | length) \(map(select(. == "warning")) | length)"' "$1"
}

main() {
  local output=${INPUT_OUTPUT:-annotations} format
  case "$output" in
  annotations) format=github ;;
  sarif) format=sarif ;;
  *) fail "output must be annotations or sarif, not \"$output\"" ;;
  esac

  local wd=${INPUT_WORKING_DIRECTORY:-.}
  cd "$wd" 2>/dev/null || fail "working-directory \"$wd\" is not a directory"

  local paths=() crds=() args=() item
  split_list "${INPUT_PATHS-.}" || fail "paths: quotes are not interpreted; put a path with spaces on a line of its own"
  paths=(${ITEMS[@]+"${ITEMS[@]}"})
  split_list "${INPUT_CRDS:-}" || fail "crds: quotes are not interpreted; put a path with spaces on a line of its own"
  crds=(${ITEMS[@]+"${ITEMS[@]}"})
  split_words "${INPUT_ARGS:-}" || fail "args: unterminated quote in: ${INPUT_ARGS:-}"
  args=(${ITEMS[@]+"${ITEMS[@]}"})
  for item in ${args[@]+"${args[@]}"}; do
    case "$item" in
    -o | -o* | --output | --output=*) fail "args: $item: the output input chooses the format (annotations or sarif)" ;;
    --) fail "args: --: give paths in the paths input" ;;
    esac
  done

  local bin=${CRDLINT_BINARY:-kubectl-crdlint}
  local cmd=("$bin" check)
  for item in ${crds[@]+"${crds[@]}"}; do cmd+=(--crd "$item"); done
  [[ -z "${INPUT_FAIL_ON:-}" ]] || cmd+=(--fail-on "$INPUT_FAIL_ON")
  cmd+=(-o "$format")
  # After the inputs, so that a flag in args wins over an input's default;
  # paths after --, so that none is taken for a flag.
  cmd+=(${args[@]+"${args[@]}"} -- ${paths[@]+"${paths[@]}"})

  TMP=$(mktemp -d "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/crdlint-run.XXXXXX")
  trap 'rm -rf "$TMP"' EXIT
  local tmp=$TMP

  local prefix sarif="" code=0
  prefix=$(repo_prefix)
  printf 'kubectl-crdlint:'
  printf ' %q' "${cmd[@]}"
  printf '\n'
  # The verdict cache the action restored: through the environment, so
  # that --cache-dir or --no-cache in args still win. The entries this
  # run added (verdicts-added) decide whether it is saved for the next.
  local verdicts=${CRDLINT_VERDICTS_DIR:-}
  if [[ -n "$verdicts" ]]; then
    export KUBECTL_CRDLINT_CACHE_DIR=$verdicts
    list_entries "$verdicts" >"$tmp/entries-before"
  fi
  "${cmd[@]}" >"$tmp/out" 2>"$tmp/err" || code=$?
  if [[ -n "$verdicts" ]]; then
    list_entries "$verdicts" >"$tmp/entries-after"
    local added
    added=$(LC_ALL=C comm -13 "$tmp/entries-before" "$tmp/entries-after" | wc -l | tr -d ' ')
    echo "verdicts-added=$added" >>"${GITHUB_OUTPUT:-/dev/null}"
    echo "kubectl-crdlint: verdict cache $verdicts: $(wc -l <"$tmp/entries-before" | tr -d ' ') entries restored, $added added"
  fi
  # The linter's own messages (exit 2) go to the log as they came.
  cat "$tmp/err" >&2

  local counts="" errors="" warnings=""
  if [[ "$format" == github ]]; then
    rebase_github "$prefix" <"$tmp/out" >"$tmp/annotations"
    cat "$tmp/annotations"
    counts=$(count_github "$tmp/annotations")
  else
    sarif=${INPUT_SARIF_FILE:-crdlint.sarif}
    if ((code < 2)); then
      mkdir -p "$(dirname "$sarif")"
      rebase_sarif "$prefix" <"$tmp/out" >"$sarif"
      counts=$(count_sarif "$sarif")
      # Name it as upload-sarif (which runs at the repository root) reads it.
      case "$sarif" in
      /* | [A-Za-z]:*) ;;
      *) [[ -z "$prefix" ]] || sarif="$prefix/$sarif" ;;
      esac
    else
      sarif=""
    fi
  fi
  if [[ -n "$counts" ]]; then
    errors=${counts% *}
    warnings=${counts#* }
  fi
  write_outputs "$code" "$errors" "$warnings" "$sarif"

  if ((code >= 2)); then
    local msg
    msg=$(cat "$tmp/err")
    [[ -n "$msg" ]] || msg="kubectl-crdlint exited with code $code"
    echo "::error title=kubectl-crdlint::$(escape_data "$msg")"
    summary_error "$msg"
    exit "$code"
  fi

  local verdict="passed"
  ((code == 0)) || verdict="failed: findings at or above fail-on"
  {
    echo "### kubectl-crdlint"
    echo
    echo "| errors | warnings | result |"
    echo "| ---: | ---: | --- |"
    echo "| ${errors:-?} | ${warnings:-?} | $verdict |"
    echo
    if [[ -n "$sarif" ]]; then
      echo "SARIF report: \`$sarif\`."
    else
      findings_table "$tmp/annotations" 100
    fi
  } >>"${GITHUB_STEP_SUMMARY:-/dev/null}"
  echo "kubectl-crdlint: errors: ${errors:-?}, warnings: ${warnings:-?}; $verdict"
  exit "$code"
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
  main
fi
