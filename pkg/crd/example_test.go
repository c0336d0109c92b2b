package crd_test

import (
	"fmt"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

const widgets = `apiVersion: apiextensions.k8s.io/v1
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
              size: {type: integer, maximum: 10}
---
apiVersion: example.com/v1
kind: Widget
metadata: {name: big}
spec: {size: 30, colour: red}
`

func Example() {
	f := source.Parse("widgets.yaml", []byte(widgets))
	cat := crd.NewCatalog(false)
	for _, fd := range crd.FindCRDs(f) {
		fmt.Println("CRD rejected:", fd.Def.Rejected(false))
	}
	cat.AddFound(crd.FindCRDs(f), crd.Input)

	cr := f.Documents[1]
	v, err := cat.Lookup(crd.GVK(cr))
	if err != nil {
		fmt.Println(err)
		return
	}
	obj, _ := cr.TakeValue()
	verdict := v.Create(obj, crd.DefaultNamespace)
	fmt.Println("pruned:", verdict.Unknown)
	for _, e := range verdict.Errors {
		fmt.Println(e)
	}

	_, err = cat.Lookup(crd.GVK(cr).GroupKind().WithVersion("v2"))
	fmt.Println(err)
	// Output:
	// CRD rejected: false
	// pruned: [spec.colour]
	// spec.size: Invalid value: 30: spec.size in body should be less than or equal to 10
	// no matches for kind "Widget" in version "example.com/v2": CRD widgets.example.com has no version "v2" (served: v1)
}
