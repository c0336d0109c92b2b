package review

import "github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"

// failOn decides whether the run fails (Reviewer.Failed): a finding left
// unsuppressed at or above --fail-on (failOn: in the configuration).
// error, the default, fails on what the server would reject; warning on
// anything reported; none never.
type failOn struct{ perRun }

func (failOn) run(r *Reviewer, res *report.Result, _ []string) error {
	r.failed = res.Fails(r.o.Settings.FailOn)
	return nil
}
