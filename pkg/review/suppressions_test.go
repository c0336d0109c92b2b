package review

import (
	"slices"
	"testing"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/config"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
)

// crd is a file with three directives: one used, one for a rule that
// reports nothing on its node, and one malformed.
const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.example.com}
spec:
  versions:
  - name: v1
    schema:
      openAPIV3Schema:
        properties:
          settings: {type: object} # crdlint:ignore crd-empty-object -- free-form by design
          labels: {type: object} # crdlint:ignore crd-no-pruning -- silences nothing
          notes: {type: object} # crdlint:ingore crd-empty-object -- misspelt
`

// TestSuppressions: the findings a directive covers are suppressed with
// its reason; the step adds what is wrong with the directives (unused,
// malformed), counted from the file's first document, and never calls a
// directive unused for a rule that did not run.
func TestSuppressions(t *testing.T) {
	settings := seen{Rule: "crd-empty-object", File: "crd.yaml", Line: 10, Severity: report.Warning}
	notes := seen{Rule: "crd-empty-object", File: "crd.yaml", Line: 12, Severity: report.Warning}
	tests := []struct {
		name  string
		conf  string
		text  string
		line  int // where text starts in the file
		base  int
		in    []seen
		want  []seen
		added []seen
	}{
		{
			name: "used, unused and malformed",
			text: crd, line: 1,
			in: []seen{settings, notes},
			want: []seen{
				{Rule: "crd-empty-object", File: "crd.yaml", Line: 10, Severity: report.Warning, Kind: report.SuppressedInline, Reason: "free-form by design"},
				notes,
			},
			added: []seen{
				{Rule: "unused-suppression", File: "crd.yaml", Line: 11, Severity: report.Warning},
				{Rule: "invalid-suppression", File: "crd.yaml", Line: 12, Severity: report.Warning},
			},
		},
		{
			name: "a rule off in the file is not unused",
			conf: "rules: {crd-no-pruning: off}\n",
			text: crd, line: 1,
			in:   []seen{settings},
			want: []seen{{Rule: "crd-empty-object", File: "crd.yaml", Line: 10, Severity: report.Warning, Kind: report.SuppressedInline, Reason: "free-form by design"}},
			added: []seen{
				{Rule: "invalid-suppression", File: "crd.yaml", Line: 12, Severity: report.Warning},
			},
		},
		{
			name: "suppressed already: neither silenced again nor using the directive",
			text: crd, line: 1,
			in:   []seen{{Rule: "crd-empty-object", File: "crd.yaml", Line: 10, Severity: report.Warning, Kind: report.SuppressedBaseline, Reason: "accepted"}},
			want: []seen{{Rule: "crd-empty-object", File: "crd.yaml", Line: 10, Severity: report.Warning, Kind: report.SuppressedBaseline, Reason: "accepted"}},
			added: []seen{
				{Rule: "unused-suppression", File: "crd.yaml", Line: 10, Severity: report.Warning},
				{Rule: "unused-suppression", File: "crd.yaml", Line: 11, Severity: report.Warning},
				{Rule: "invalid-suppression", File: "crd.yaml", Line: 12, Severity: report.Warning},
			},
		},
		{
			name: "a document read alone, the fourth of its file from line 31",
			text: "apiVersion: v1\nkind: Gadget\nspec: {size: 30} # crdlint:ignore cr-schema -- too big on purpose\nx: 1 # crdlint:ignore crd-no-pruning -- silences nothing\n",
			line: 31, base: 3,
			in:   []seen{{Rule: "cr-schema", File: "crd.yaml", Line: 33, Severity: report.Error}},
			want: []seen{{Rule: "cr-schema", File: "crd.yaml", Line: 33, Severity: report.Error, Kind: report.SuppressedInline, Reason: "too big on purpose"}},
			added: []seen{
				{Rule: "unused-suppression", File: "crd.yaml", Line: 34, Document: 3, Severity: report.Warning},
			},
		},
		{
			name: "no text",
			in:   []seen{settings},
			want: []seen{settings},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := reviewer(t, tt.conf, config.Flags{}, Options{})
			f := File{Name: "crd.yaml", Comments: r.Read("crd.yaml", []byte(tt.text), tt.line), Base: tt.base}
			if tt.text == "" {
				f.Comments = nil
			}
			for _, s := range tt.in {
				x := report.Finding{Rule: s.Rule, File: s.File, Line: s.Line, Document: s.Document, Severity: s.Severity}
				if s.Kind != "" {
					x.Suppressed = &report.Suppression{Kind: s.Kind, Reason: s.Reason}
				}
				f.Findings = append(f.Findings, x)
			}
			added := suppressions{}.file(r, &f)
			if got := seenOf(f.Findings); !slices.Equal(got, tt.want) {
				t.Errorf("findings:\ngot  %+v\nwant %+v", got, tt.want)
			}
			if got := seenOf(added); !slices.Equal(got, sortedSeen(tt.added)) {
				t.Errorf("added:\ngot  %+v\nwant %+v", got, tt.added)
			}
		})
	}
}
