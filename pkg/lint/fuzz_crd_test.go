package lint

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/testutil"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// FuzzCRDLint lints random CRD documents: no panic, no negative position.
// pkg/crd's FuzzCELCosts checks the cost estimates on the same seeds.
func FuzzCRDLint(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/rules/*/*.yaml")
	seeds = append(seeds, "testdata/base-crd.yaml")
	for _, p := range testutil.Files(f, "crds") {
		if st, err := os.Stat(p); err == nil && st.Size() < 40_000 {
			seeds = append(seeds, p)
		}
	}
	for _, p := range seeds {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	l := New(Options{})
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, d := range source.Parse("fuzz.yaml", data).Documents {
			if !crd.IsCRD(d) {
				continue
			}
			for _, fd := range l.CRD(d, nil) {
				if fd.Line < 0 || fd.Column < 0 {
					t.Fatalf("negative position: %+v", fd)
				}
			}
		}
	})
}
