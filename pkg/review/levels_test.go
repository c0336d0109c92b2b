package review

import (
	"slices"
	"testing"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/config"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
)

// TestLevels: each finding at its rule's level in its file; a rule off
// there suppressed by the configuration with the entry (or flag) that
// said so; an error never lowered to a warning; what nothing configures
// left as the linter reported it; what is suppressed already left alone.
func TestLevels(t *testing.T) {
	const conf = `
rules:
  crd-empty-object: off
  crd-no-pruning: error
  unknown-field: warning
overrides:
  - files: ["vendor/**"]
    rules: {crd-empty-object: warning, crd-no-pruning: off, crd-structural: off}
`
	tests := []struct {
		name  string
		flags config.Flags
		in    report.Finding
		want  seen
	}{
		{"off everywhere", config.Flags{}, report.Finding{Rule: "crd-empty-object", Severity: report.Warning, File: "a.yaml"},
			seen{Rule: "crd-empty-object", File: "a.yaml", Severity: report.Warning, Kind: report.SuppressedConfig, Reason: ".crdlint.yaml rules: crd-empty-object: off"}},
		{"on again in an override", config.Flags{}, report.Finding{Rule: "crd-empty-object", Severity: report.Warning, File: "vendor/x/a.yaml"},
			seen{Rule: "crd-empty-object", File: "vendor/x/a.yaml", Severity: report.Warning}},
		{"raised", config.Flags{}, report.Finding{Rule: "crd-no-pruning", Severity: report.Warning, File: "a.yaml"},
			seen{Rule: "crd-no-pruning", File: "a.yaml", Severity: report.Error}},
		{"off in an override", config.Flags{}, report.Finding{Rule: "crd-no-pruning", Severity: report.Warning, File: "vendor/a.yaml"},
			seen{Rule: "crd-no-pruning", File: "vendor/a.yaml", Severity: report.Warning, Kind: report.SuppressedConfig, Reason: ".crdlint.yaml overrides[0] (vendor/**): crd-no-pruning: off"}},
		{"a server rejection turned off", config.Flags{}, report.Finding{Rule: "crd-structural", Severity: report.Error, File: "vendor/a.yaml"},
			seen{Rule: "crd-structural", File: "vendor/a.yaml", Severity: report.Error, Kind: report.SuppressedConfig, Reason: ".crdlint.yaml overrides[0] (vendor/**): crd-structural: off"}},
		{"a rejection stays an error at warning", config.Flags{}, report.Finding{Rule: "unknown-field", Severity: report.Error, File: "a.yaml"},
			seen{Rule: "unknown-field", File: "a.yaml", Severity: report.Error}},
		{"a warning at warning", config.Flags{}, report.Finding{Rule: "unknown-field", Severity: report.Warning, File: "a.yaml"},
			seen{Rule: "unknown-field", File: "a.yaml", Severity: report.Warning}},
		{"nothing said: as reported", config.Flags{}, report.Finding{Rule: "upgrade-field-removed", Severity: report.Warning, File: "a.yaml"},
			seen{Rule: "upgrade-field-removed", File: "a.yaml", Severity: report.Warning}},
		{"suppressed already", config.Flags{}, report.Finding{Rule: "crd-empty-object", Severity: report.Warning, File: "a.yaml", Suppressed: &report.Suppression{Kind: report.SuppressedInline, Reason: "why"}},
			seen{Rule: "crd-empty-object", File: "a.yaml", Severity: report.Warning, Kind: report.SuppressedInline, Reason: "why"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := reviewer(t, conf, tt.flags, Options{})
			f := File{Name: tt.in.File, Findings: []report.Finding{tt.in}}
			levels{}.file(r, &f)
			if got := seenOf(f.Findings); !slices.Equal(got, []seen{tt.want}) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestLevelsOffEverywhere: the findings of a rule off for every file
// (--disable, or off in rules: with no override turning it on again) are
// taken out, whichever code reported them (the linter computes every
// rule), rather than listed as suppressed; a rule off only somewhere is
// suppressed there.
func TestLevelsOffEverywhere(t *testing.T) {
	const conf = `
rules:
  crd-no-pruning: off
  crd-empty-object: off
overrides:
  - files: ["vendor/**"]
    rules: {crd-empty-object: warning}
`
	r := reviewer(t, conf, config.Flags{Disable: []string{"cr-schema,crd-duplicate"}}, Options{})
	f := File{Name: "a.yaml", Findings: []report.Finding{
		{Rule: "cr-schema", Severity: report.Error, File: "a.yaml", Line: 1},
		{Rule: "crd-duplicate", Severity: report.Warning, File: "a.yaml", Line: 2},
		{Rule: "crd-no-pruning", Severity: report.Warning, File: "a.yaml", Line: 3},
		{Rule: "crd-empty-object", Severity: report.Warning, File: "a.yaml", Line: 4},
		{Rule: "cr-cel", Severity: report.Error, File: "a.yaml", Line: 5},
	}}
	levels{}.file(r, &f)
	want := []seen{
		{Rule: "crd-empty-object", File: "a.yaml", Line: 4, Severity: report.Warning, Kind: report.SuppressedConfig, Reason: ".crdlint.yaml rules: crd-empty-object: off"},
		{Rule: "cr-cel", File: "a.yaml", Line: 5, Severity: report.Error},
	}
	if got := seenOf(f.Findings); !slices.Equal(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}
