// Package read is where kubectl crdlint upgrade reads, and the only part
// of pkg/upgrade that touches files, git or a cluster:
//
//   - CRDs reads OLD's or NEW's CRDs from a revision argument: files or
//     directories (stdin for "-"), or REV:PATH, a file or a directory at
//     a git revision (crdsource.Arg);
//   - LiveCRDs reads OLD's from the cluster, each of NEW's CRDs as the
//     cluster has it (crdsource.Cluster);
//   - Objects reads the files of objects that exist today, in parallel,
//     and LiveObjects a cluster's stored objects a page at a time
//     (cluster.Client.Pages); each file or object is handed to
//     pkg/upgrade's Pairs to replay as it is read, so that no more than a
//     page is held.
//
// Each file's findings go through the command's Reviewer (pkg/review's:
// the configuration and inline suppressions, with the file's text), and
// what was read is counted into the report.Result. Decoding and judging
// are pkg/upgrade's.
//
// Example (the command's Run, in this order):
//
//	newCRDs, newFiles, err := read.CRDs(ctx, newArg, false, stdin, l, rv, &res)
//	oldCRDs, oldFiles, err := read.CRDs(ctx, oldArg, true, stdin, l, rv, &res)
//	pairs, findings := upgrade.Judge(l, oldCRDs, newCRDs, upgrade.JudgeOptions{})
//	err = read.Objects(ctx, objects, pairs, rv, &res) // objects: an *input.Set
//	changes, summaries := pairs.Report()
package read
