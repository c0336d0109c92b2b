package suppress

import "github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"

// Kinds of suppression, as the JSON and SARIF outputs name them.
const (
	KindInline   = report.SuppressedInline   // a # crdlint:ignore comment
	KindConfig   = report.SuppressedConfig   // .crdlint.yaml or --disable turned the rule off
	KindBaseline = report.SuppressedBaseline // the finding is in the --baseline file
)

// Suppression says why a finding is not counted.
type Suppression = report.Suppression

// Suppressed is a finding kept out of the counts, with the reason. Its
// JSON is the finding's with a "suppressed" object added, the shape the
// JSON output lists it in.
type Suppressed struct {
	report.Finding
	Suppression Suppression `json:"suppressed"`
}

// Marked is the finding as reports carry it: with Suppressed set.
func (s Suppressed) Marked() report.Finding {
	f := s.Finding
	sup := s.Suppression
	f.Suppressed = &sup
	return f
}

// Rule IDs of the findings about suppressions themselves.
const (
	RuleInvalid = "invalid-suppression"
	RuleUnused  = "unused-suppression"
)

// Rules is what this package adds to the rule set.
var Rules = []report.Rule{
	{
		ID: RuleInvalid, Severity: report.Warning, Doc: "A # crdlint:ignore comment is malformed: no rule, an unknown rule, an unknown directive, or no \"-- reason\"; it silences nothing.",
		Why: "A malformed suppression silences nothing, so the finding it was meant for still fails the run, and a reader of the file believes it is silenced. The reason after `--` is required so that every exception says why it is one.",
		Fix: "Write the comment as `# crdlint:ignore RULE -- reason` (or `# crdlint:ignore-document RULE -- reason` for the whole document), with a rule ID from `kubectl crdlint check --list-rules` and a reason after `--`.",
	},
	{
		ID: RuleUnused, Severity: report.Warning, Doc: "A # crdlint:ignore comment silences nothing: the rule it names reports nothing there (any more).",
		Why: "A suppression outlives its finding when the problem is fixed or the rule no longer reports there: it then hides nothing today but would hide a new problem of the same rule at that place tomorrow.",
		Fix: "Remove the comment; or, if it names the wrong rule or sits on the wrong line, move it to the finding it is meant for.",
	},
}
