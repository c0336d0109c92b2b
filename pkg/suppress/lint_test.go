package suppress

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/lint"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// TestWithLinter runs the real linter on a fixture and applies its
// suppressions: the positions the linter gives (keys, items, nearest
// ancestors for absent fields) fall in the spans the directives cover.
func TestWithLinter(t *testing.T) {
	file := filepath.Join("testdata", "lint", "widget.yaml")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	cat := crd.NewCatalog(false)
	l := lint.New(lint.Options{Catalog: cat})
	f := source.Parse(file, data)
	cat.AddFound(crd.FindCRDs(f), crd.Input)
	findings, _ := l.File(f)
	s := Scan(file, data, append(slices.Clone(lint.Rules), Rules...))
	if len(s.Invalid) > 0 {
		t.Fatalf("invalid: %v", s.Invalid)
	}
	kept, suppressed, unused := s.Apply(findings, nil)
	show := func(fs []report.Finding) []string {
		var out []string
		for _, f := range fs {
			out = append(out, fmt.Sprintf("%d %s %s", f.Line, f.Rule, f.Field))
		}
		slices.Sort(out)
		return out
	}
	var sup []report.Finding
	for _, x := range suppressed {
		sup = append(sup, x.Finding)
	}
	wantSuppressed := []string{
		"21 crd-empty-object spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[settings]",
		"23 crd-empty-object spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[extra]",
		"33 unknown-field spec.color",
		"34 unknown-field spec.size",
		"42 unknown-field typo",
	}
	wantKept := []string{
		"25 crd-empty-object spec.versions[0].schema.openAPIV3Schema.properties[other]",
		"35 unknown-field unknown",
	}
	if got := show(sup); !slices.Equal(got, wantSuppressed) {
		t.Errorf("suppressed = %q\nwant %q", got, wantSuppressed)
	}
	if got := show(kept); !slices.Equal(got, wantKept) {
		t.Errorf("kept = %q\nwant %q", got, wantKept)
	}
	if got := show(unused); !slices.Equal(got, []string{"47 unused-suppression "}) {
		t.Errorf("unused = %q", got)
	}
}
