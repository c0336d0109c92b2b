package lint

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiserver/pkg/cel/environment"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/testutil"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// FuzzCRDLint lints random CRD documents: no panic, no negative position,
// and the CEL cost estimates, with one cache shared by every input as in
// a run, equal to compiling every version's schema on its own.
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
			if !IsCRD(d) {
				continue
			}
			for _, fd := range l.CRD(d) {
				if fd.Line < 0 || fd.Column < 0 {
					t.Fatalf("negative position: %+v", fd)
				}
			}
			v := ValidateCRD(d.JSON)
			if v.V1 == nil || v.Internal == nil {
				continue
			}
			want, ok := eachVersionCosts(v.V1)
			if !ok {
				continue
			}
			if got := celCosts(v.V1, v.Internal, l.costs); !reflect.DeepEqual(got, want) {
				t.Fatalf("with the run's cache\n%+v\nevery version compiled\n%+v", got, want)
			}
		}
	})
}

// eachVersionCosts is costsOfEachVersion that reports a schema the
// conversion refuses instead of failing.
func eachVersionCosts(crd *apiextensionsv1.CustomResourceDefinition) ([]CELCost, bool) {
	envSet := environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion())
	var out []CELCost
	for i := range crd.Spec.Versions {
		s, path := versionSchema(crd, i)
		if s == nil {
			continue
		}
		in := &apiextensions.JSONSchemaProps{}
		if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(s, in, nil); err != nil {
			return nil, false
		}
		out = append(out, schemaCosts(in, path, crd.Spec.Versions[i].Name, envSet, nil)...)
	}
	return out, true
}
