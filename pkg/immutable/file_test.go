package immutable

import (
	"strings"
	"testing"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// TestToCELFile: each CRD of a file is translated or refused on its own,
// in document order; other documents are left out.
func TestToCELFile(t *testing.T) {
	const crdHead = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {plural: widgets, kind: Widget}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
`
	good := crdHead + "              region: {type: string, x-kubernetes-mutability: Immutable}\n"
	bad := crdHead + "              region: {type: string, x-kubernetes-mutability: Sometimes}\n"
	f := source.Parse("crds.yaml", []byte(good+"---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\n"+bad))
	ts, err := ToCELFile(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) != 2 {
		t.Fatalf("got %d translations, want 2 (the ConfigMap left out)", len(ts))
	}
	if ts[0].Err != nil || !strings.Contains(string(ts[0].YAML), "oldSelf") || strings.Contains(string(ts[0].YAML), "x-kubernetes-mutability") {
		t.Errorf("first CRD: got %v\n%s\nwant a CEL transition rule in place of the marker", ts[0].Err, ts[0].YAML)
	}
	if ts[1].Err == nil || ts[1].YAML != nil || ts[1].Doc.Index != 2 {
		t.Errorf("second CRD: got %v, %q (document %d); want an error for document 2", ts[1].Err, ts[1].YAML, ts[1].Doc.Index)
	}
}

// TestToCELFileV1beta1: a CRD in a version no supported server serves
// (velero's and argo-workflows' v1beta1 CRDs) is refused in the server's
// words, not with the decoder's Go type.
func TestToCELFileV1beta1(t *testing.T) {
	f := source.Parse("old.yaml", []byte(`apiVersion: apiextensions.k8s.io/v1beta1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {plural: widgets, kind: Widget}
  scope: Namespaced
  version: v1
  validation:
    openAPIV3Schema:
      properties:
        spec: {type: object}
`))
	ts, err := ToCELFile(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) != 1 || ts[0].Err == nil {
		t.Fatalf("got %d translations (%+v), want one refused", len(ts), ts)
	}
	msg := ts[0].Err.Error()
	if !strings.Contains(msg, `version "apiextensions.k8s.io/v1beta1"`) || strings.Contains(msg, "*v1beta1") {
		t.Errorf("error %q: want it to name the version served no more, not a Go type", msg)
	}
}
