// Package read is where kubectl crdlint upgrade reads, and the only part
// of pkg/upgrade that touches files, git or a cluster:
//
//   - CRDs reads OLD's or NEW's CRDs from a revision argument: files or
//     directories (stdin for "-"), or REV:PATH, a file or a directory at
//     a git revision (pkg/gitrev);
//   - LiveCRDs reads OLD's from the cluster, each of NEW's CRDs as the
//     cluster has it (pkg/cluster);
//   - Objects reads the files of objects that exist today, in parallel,
//     and LiveObjects a cluster's stored objects a page at a time; each
//     file or object is handed to pkg/upgrade's Pairs to replay as it is
//     read, so that no more than a page is held.
//
// Each file's findings go through the command's Review (its configuration
// and inline suppressions, with the file's text), and what was read is
// counted into the report.Result. Decoding and judging are pkg/upgrade's.
//
// Example (the command's Run, in this order):
//
//	newCRDs, err := read.CRDs(newArg, stdin, l, review, &res)
//	oldCRDs, err := read.CRDs(oldArg, stdin, l, review, &res)
//	pairs, findings := upgrade.Judge(l, oldCRDs, newCRDs, upgrade.JudgeOptions{})
//	err = read.Objects(ctx, objectFiles, pairs, review, &res)
//	changes, summaries := pairs.Report()
package read
