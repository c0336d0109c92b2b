// Package review is what happens to a run's findings between judging and
// printing, for every command that reports findings (check, immutable,
// upgrade): one ordered list of steps, one file each: the rules' levels
// from the configuration and --disable (levels.go), inline suppressions
// (suppressions.go), Helm template streams and rendered kustomizations
// mapped back to the files the user wrote (mapping.go), the baseline
// (baseline.go), and --fail-on (failon.go). The steps list in review.go
// says why the order is what it is.
//
// A command makes one Reviewer per run (New), reads each file's comments
// while its text is at hand (Read), hands it each file's findings as
// they come (File or Text, safe for concurrent use), then the whole
// result once (Finish); Failed says whether the run fails.
package review
