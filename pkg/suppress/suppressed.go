package suppress

import "github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"

// Kinds of suppression, as the JSON and SARIF outputs name them.
const (
	KindInline   = "inline"   // a # crdlint:ignore comment
	KindConfig   = "config"   // .crdlint.yaml or --disable turned the rule off
	KindBaseline = "baseline" // the finding is in the --baseline file
)

// Suppression says why a finding is not counted.
//
// It stands in for report.Suppression, which another branch is adding
// together with a Finding.Suppressed field; once that is merged this
// becomes an alias (type Suppression = report.Suppression) and
// Suppressed becomes a report.Finding with Suppressed set.
type Suppression struct {
	Kind   string `json:"kind"`
	Reason string `json:"reason"`
}

// Suppressed is a finding kept out of the counts, with the reason. Its
// JSON is the finding's with a "suppressed" object added, the shape the
// JSON output will list it in.
type Suppressed struct {
	report.Finding
	Suppression Suppression `json:"suppressed"`
}

// Rule IDs of the findings about suppressions themselves.
const (
	RuleInvalid = "invalid-suppression"
	RuleUnused  = "unused-suppression"
)

// Rules is what this package adds to the rule catalogue.
var Rules = []report.Rule{
	{ID: RuleInvalid, Severity: report.Warning, Doc: "A # crdlint:ignore comment is malformed: no rule, an unknown rule, an unknown directive, or no \"-- reason\"; it silences nothing."},
	{ID: RuleUnused, Severity: report.Warning, Doc: "A # crdlint:ignore comment silences nothing: the rule it names reports nothing there (any more)."},
}
