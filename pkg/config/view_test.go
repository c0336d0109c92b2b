package config

import (
	"path/filepath"
	"testing"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
)

// TestView renders the effective configuration of fixtures with and
// without flags against goldens, and checks that what it prints loads
// back without findings.
func TestView(t *testing.T) {
	tests := []struct {
		name   string
		config string // a fixture under testdata/load/valid, or "" for none
		flags  Flags
	}{
		{"no-file", "", Flags{}},
		{"no-file-flags", "", Flags{Strict: ptr(true), Disable: []string{"crd-cel,crd-names"}, Exclude: []string{"gen/"}, CRDs: []string{"crds/"}, Baseline: ptr("b.yaml")}},
		{"everything", "everything.yaml", Flags{}},
		{"everything-flags", "everything.yaml", Flags{FailOn: ptr(report.Warning), RequireCRDs: ptr(true), Disable: []string{"crd-no-pruning"}}},
		{"issue", "issue.yaml", Flags{}},
		{"disable-a-configured-rule", "issue.yaml", Flags{Disable: []string{"crd-empty-object"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c *Config
			path := filepath.Join("testdata", "load", "valid", tt.config)
			if tt.config != "" {
				var err error
				c, _, err = Load(path, catalogue())
				if err != nil {
					t.Fatal(err)
				}
			}
			s, err := Resolve(c, tt.flags)
			if err != nil {
				t.Fatal(err)
			}
			got, err := s.View()
			if err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join("testdata", "view", tt.name+".golden"), got)
			if tt.config == "" {
				path = filepath.Join(t.TempDir(), ".crdlint.yaml")
			}
			if _, fs := Parse(path, got, catalogue()); len(fs) > 0 && tt.flags.CRDs == nil {
				t.Errorf("the view does not load back: %v", fs)
			}
		})
	}
}
