package engine

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/testutil"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// FuzzCELCosts decodes and validates random CRD documents: no panic, and
// the CEL cost estimates, with one cache shared by every input as in a
// run, equal to compiling every version's schema on its own.
func FuzzCELCosts(f *testing.F) {
	seeds, _ := filepath.Glob("../lint/testdata/rules/*/*.yaml")
	seeds = append(seeds, "../lint/testdata/base-crd.yaml")
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
	cache := NewCostCache()
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, d := range source.Parse("fuzz.yaml", data).Documents {
			if _, v := d.GroupVersion(); !isCRD(d) || v != "v1" {
				continue
			}
			def := decode(d.JSON)
			v := def.Verdict(cache)
			if def.V1 == nil || !v.Accepted() {
				continue
			}
			want, ok := eachVersionCosts(def.V1)
			if !ok {
				continue
			}
			if got := v.Costs; !reflect.DeepEqual(got, want) {
				t.Fatalf("with the run's cache\n%+v\nevery version compiled\n%+v", got, want)
			}
		}
	})
}

// eachVersionCosts compiles every version's schema on its own, converted
// from v1, as the server's validation does: the reference for celCosts'
// reuse of identical schemas. It reports a schema the conversion refuses.
func eachVersionCosts(crd *apiextensionsv1.CustomResourceDefinition) ([]CELCost, bool) {
	envSet := baseEnvSet()
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
