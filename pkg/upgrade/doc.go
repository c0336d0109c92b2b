// Package upgrade is the work of kubectl crdlint upgrade: the upgrade of
// CustomResourceDefinitions from a revision OLD to a revision NEW, judged
// as the API server would, in three parts below it and the command's
// findings put together here:
//
//   - compare: the breaking-change comparison of OLD and NEW, pure (plain
//     values in, sorted changes out, no I/O);
//   - replay: the objects that exist today replayed through the upgrade,
//     through the server's code (pkg/engine), judging the comparison's
//     tightenings on them;
//   - read: OLD, NEW and the objects read from files, git and the cluster,
//     the only part that touches them.
//
// Here: FileCRDs takes the CRDs of a parsed file of OLD or NEW; Judge
// pairs OLD's with NEW's by name, reports those of one side only
// (RuleCRDUnpaired), and adds the server's verdict on each update (a
// refusal the comparison knows too under the comparison's rule,
// compare.ServerRule, reported once); the Pairs it returns replay a parsed
// file of objects (File) or an object read from storage (Stored), and
// Report gives the comparison's changes, judged on the objects, and each
// CRD's report.UpgradeSummary once every object is replayed. Findings are
// positioned as check positions its own (pkg/lint's At). CountBreaking
// puts the changes left as errors after review in each CRD's summary.
// Rules is the command's list of upgrade rules, each with its Why and Fix
// (prose.go).
//
// Nothing here reads a file, git or a cluster: pkg/upgrade/read does, and
// hands each parsed file or object to a Pairs. The configuration and the
// inline suppressions are applied by pkg/review, which the command runs
// over the findings.
//
// Example:
//
//	pairs, findings := upgrade.Judge(l, oldCRDs, newCRDs, upgrade.JudgeOptions{})
//	for _, f := range objectFiles { // parsed with pkg/source
//		fs, sum := pairs.File(f)
//		...
//	}
//	changes, summaries := pairs.Report()
//	upgrade.CountBreaking(summaries, reviewed) // the run's findings after review
package upgrade
