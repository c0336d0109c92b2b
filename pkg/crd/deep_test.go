package crd

import (
	"fmt"
	"os"
	"reflect"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/testutil"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// TestDeepDigestIsDeepEqual: two values have the same deepDigest exactly
// when reflect.DeepEqual holds, on every pair of corpus CRDs (decoded,
// and each with one small change) and on the values DeepEqual tells
// apart that encodings commonly merge.
func TestDeepDigestIsDeepEqual(t *testing.T) {
	var objs []any
	for _, p := range testutil.Files(t, "crds") {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, fd := range FindCRDs(source.Parse(p, data)) {
			if fd.Def == nil || fd.Def.v1 == nil {
				continue
			}
			full := fd.Def.Object()
			objs = append(objs, full)
			changed := full.DeepCopy()
			changed.Spec.Versions[0].Served = !changed.Spec.Versions[0].Served
			objs = append(objs, changed)
			if s := full.Spec.Versions[0].Schema; s != nil && s.OpenAPIV3Schema != nil {
				emptied := full.DeepCopy()
				emptied.Spec.Versions[0].Schema.OpenAPIV3Schema.Required = []string{}
				objs = append(objs, emptied)
			}
		}
	}
	if len(objs) < 60 {
		t.Fatalf("only %d objects", len(objs))
	}
	var zero, negZero float64 = 0, 0
	negZero = -negZero
	objs = append(objs,
		[]string(nil), []string{}, map[string]int(nil), map[string]int{}, (*int)(nil), new(int),
		map[string]int{"a": 1, "b": 2}, map[string]int{"b": 2, "a": 1}, map[string]int{"a": 2, "b": 1},
		zero, negZero, int64(1), int32(1), "", "a", [2]int{1, 2}, [2]int{2, 1},
		&apiextensionsv1.JSONSchemaProps{}, &apiextensionsv1.JSONSchemaProps{Properties: map[string]apiextensionsv1.JSONSchemaProps{}},
		any(nil), []any{nil}, []any{(*int)(nil)})
	digests := make([]string, len(objs))
	for i, o := range objs {
		digests[i] = deepDigest(o)
	}
	pairs := 0
	for i := range objs {
		for j := i; j < len(objs); j++ {
			eq := reflect.DeepEqual(objs[i], objs[j])
			if eq != (digests[i] == digests[j]) {
				t.Fatalf("objects %d and %d: DeepEqual %t, digests equal %t (%s)", i, j, eq, !eq, describeObj(objs[i]))
			}
			pairs++
		}
	}
	t.Logf("%d objects, %d pairs", len(objs), pairs)
}

func describeObj(o any) string {
	if c, ok := o.(*apiextensionsv1.CustomResourceDefinition); ok {
		return c.Name
	}
	return fmt.Sprintf("%#v", o)
}
