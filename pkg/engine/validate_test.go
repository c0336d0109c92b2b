package engine

import (
	"os"
	"path/filepath"
	"testing"

	apiequality "k8s.io/apimachinery/pkg/api/equality"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/testutil"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// TestValidateLeavesV1: validateCreate converts without copying, so the
// server's validation must not write into the decoded v1 CRD it shares
// slices and maps with (the catalogue keeps that CRD and compiles its
// versions later). Every corpus and testdata CRD, valid or not.
func TestValidateLeavesV1(t *testing.T) {
	files := testutil.Files(t, "crds")
	for _, pattern := range []string{"../lint/testdata/*.yaml", "../lint/testdata/rules/*/*.yaml", "../../examples/*/*.yaml"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	checked, rejected := 0, 0
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range source.Parse(p, data).Documents {
			if !isCRD(d) {
				continue
			}
			def := decode(d.JSON)
			if def.V1 == nil {
				continue
			}
			before := def.V1.DeepCopy()
			v := def.Verdict(NewCostCache())
			if !apiequality.Semantic.DeepEqual(before, def.V1) {
				t.Errorf("%s#%d: the server's validation changed the decoded CRD", p, d.Index)
			}
			checked++
			if v.Rejected(false) {
				rejected++
			}
		}
	}
	if checked < testutil.AtLeast(t, 150, 100) || rejected < 20 {
		t.Fatalf("only %d CRDs checked, %d rejected", checked, rejected)
	}
	t.Logf("%d CRDs (%d rejected) left unchanged by validation", checked, rejected)
}
