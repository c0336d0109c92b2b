// Package baseline records today's findings so that a run reports only
// new ones: check --write-baseline FILE writes one, check --baseline FILE
// reads it.
//
// An entry is keyed by file (relative to the baseline's directory),
// object (apiVersion, kind, namespace, name), rule, field path and
// message, never by line or column, so that edits elsewhere in a file
// keep it matching; identical findings are counted, and an entry with
// count n accepts n of them. Match splits a run's findings into fresh
// ones (reported), baselined ones (suppressed, kind "baseline") and the
// stale entries that matched nothing, so that the baseline shrinks as
// findings are fixed. Only restricts a baseline to the files of a partial
// run (a pre-commit hook), so the others' entries are not called stale,
// and Update rewrites just those files' entries.
//
// The file is YAML with a header saying what it is, the format version,
// the tool's version and the entries sorted, so that it diffs well in
// review; it is written atomically.
//
// Left to others: finding problems (lint), applying the baseline to a
// run's findings, the output and the summary (pkg/review's baseline
// step), inline and configured suppressions (suppress, config). A message that carries a number that
// moves with unrelated changes (a CEL cost estimate) makes its entry
// stale and its finding fresh when the number moves: that is the finding
// changing, and the baseline says so.
//
// See Example.
package baseline
