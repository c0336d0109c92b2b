package suppress_test

import (
	"fmt"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/suppress"
)

func Example() {
	data := []byte(`apiVersion: example.com/v1
kind: Widget
metadata:
  name: a
  annotations:
    note: "# crdlint:ignore unknown-field -- only text in a string"
spec: # crdlint:ignore unknown-field -- added in the next release
  colour: blue
extra: 1
`)
	rules := []report.Rule{{ID: "unknown-field", Severity: report.Warning}}
	set := suppress.Scan("widget.yaml", data, rules)
	kept, suppressed, unused := set.Apply([]report.Finding{
		{Rule: "unknown-field", File: "widget.yaml", Line: 8, Column: 3, Field: "spec.colour"},
		{Rule: "unknown-field", File: "widget.yaml", Line: 9, Column: 1, Field: "extra"},
	}, nil)
	for _, f := range kept {
		fmt.Println("kept:", f.Field)
	}
	for _, s := range suppressed {
		fmt.Printf("suppressed: %s (%s: %s)\n", s.Field, s.Suppression.Kind, s.Suppression.Reason)
	}
	fmt.Println("unused:", len(unused), "invalid:", len(set.Invalid))
	// Output:
	// kept: extra
	// suppressed: spec.colour (inline: added in the next release)
	// unused: 0 invalid: 0
}
