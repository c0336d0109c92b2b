package lint

import (
	"reflect"
	"testing"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/testutil"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// TestCELCostsFromInternal checks that the costs check computes from the
// CRD ValidateCRD already converted are those CELCosts computes from the
// v1 CRD, for every corpus CRD (one schema per version, or one shared
// schema the conversion moves to spec.validation).
func TestCELCostsFromInternal(t *testing.T) {
	compared := 0
	for _, p := range testutil.Files(t, "crds") {
		f, err := source.Read(p, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Documents {
			if !IsCRD(d) {
				continue
			}
			v := ValidateCRD(d.JSON)
			if v.V1 == nil || v.Internal == nil {
				continue
			}
			want, got := CELCosts(v.V1), celCosts(v.V1, v.Internal)
			if !reflect.DeepEqual(want, got) {
				t.Fatalf("%s: costs from the internal CRD\n%+v\nfrom the v1 CRD\n%+v", p, got, want)
			}
			compared += len(want)
		}
	}
	if compared < 100 {
		t.Fatalf("only %d costs compared", compared)
	}
	t.Logf("%d costs compared", compared)
}
