package review

import (
	"cmp"
	"slices"
	"testing"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/config"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/suppress"
)

// rules is the small catalogue the tests' configurations and comments
// are checked against.
var rules = append([]report.Rule{
	{ID: "cr-schema", Severity: report.Error},
	{ID: "crd-empty-object", Severity: report.Warning},
	{ID: "crd-no-pruning", Severity: report.Warning},
	{ID: "crd-structural", Severity: report.Error},
	{ID: "unknown-field", Severity: report.Warning},
	{ID: "upgrade-field-removed", Severity: report.Error},
}, suppress.Rules...)

// reviewer is a Reviewer under the configuration file text (at
// .crdlint.yaml: paths are relative to the working directory) and flags.
func reviewer(t *testing.T, text string, flags config.Flags, o Options) *Reviewer {
	t.Helper()
	c, problems := config.Parse(".crdlint.yaml", []byte(text), rules)
	if len(problems) > 0 {
		t.Fatalf("configuration: %+v", problems)
	}
	s, err := config.Resolve(c, flags)
	if err != nil {
		t.Fatal(err)
	}
	o.Settings, o.Rules = s, rules
	return New(o)
}

// seen is a finding as a test compares it: what the user sees of it.
type seen struct {
	Rule     string
	File     string
	Line     int
	Document int
	Severity report.Severity
	// Kind and Reason of its suppression, if any.
	Kind   report.SuppressionKind
	Reason string
	Via    string
}

func seenOf(fs []report.Finding) []seen {
	out := make([]seen, 0, len(fs))
	for _, f := range fs {
		s := seen{Rule: f.Rule, File: f.File, Line: f.Line, Document: f.Document, Severity: f.Severity, Via: f.Via}
		if f.Suppressed != nil {
			s.Kind, s.Reason = f.Suppressed.Kind, f.Suppressed.Reason
		}
		out = append(out, s)
	}
	return sortedSeen(out)
}

// sortedSeen sorts as the renderers do: tests do not depend on the order
// the steps leave findings in.
func sortedSeen(ss []seen) []seen {
	out := slices.Clone(ss)
	slices.SortFunc(out, func(a, b seen) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Document, b.Document), cmp.Compare(a.Line, b.Line),
			cmp.Compare(a.Rule, b.Rule), cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Reason, b.Reason))
	})
	return out
}
