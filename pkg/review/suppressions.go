package review

import (
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
)

// suppressions applies the file's inline suppressions (# crdlint:ignore
// comments, pkg/suppress): the findings a directive covers are
// suppressed (kind "inline", the directive's reason). It adds the
// suppressions' own findings: malformed directives (invalid-suppression)
// and, for each rule of a directive that silenced nothing although the
// rule ran on the file, unused-suppression.
//
// A file's suppressions are judged on all of its findings at once:
// whether a directive is used depends on every finding it could cover.
type suppressions struct{ perFile }

func (suppressions) file(r *Reviewer, f *File) []report.Finding {
	if f.Comments == nil || f.Comments.suppressions == nil {
		return nil
	}
	set := f.Comments.suppressions
	var live, done []report.Finding
	for _, x := range f.Findings {
		if x.Suppressed == nil {
			live = append(live, x)
		} else {
			done = append(done, x)
		}
	}
	// A directive for a rule that is off in the file is not unused: the
	// rule did not run.
	ran := func(rule string) bool {
		_, off := r.o.Settings.RuleSeverity(rule, f.Name)
		return !off
	}
	kept, silenced, unused := set.Apply(live, ran)
	for _, s := range silenced {
		done = append(done, s.Marked())
	}
	f.Findings = append(done, kept...)
	// The set counts documents from its text's first: a copy, for the
	// comments may be reviewed again.
	added := make([]report.Finding, 0, len(set.Invalid)+len(unused))
	for _, x := range append(set.Invalid[:len(set.Invalid):len(set.Invalid)], unused...) {
		x.Document += f.Base
		added = append(added, x)
	}
	return added
}
