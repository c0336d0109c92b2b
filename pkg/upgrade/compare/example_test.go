package compare_test

import (
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/upgrade/compare"
)

func ExampleRevisions() {
	// Real callers decode and default the CRDs as the server stores them
	// (the server's codec); these two need no defaults.
	decode := func(s string) *apiextensionsv1.CustomResourceDefinition {
		var crd apiextensionsv1.CustomResourceDefinition
		if err := yaml.UnmarshalStrict([]byte(s), &crd); err != nil {
			panic(err)
		}
		return &crd
	}
	old := decode(`
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
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
              size: {type: string, enum: [small, medium, large], description: How big.}
              replicas: {type: integer, maximum: 10}
              color: {type: string}
`)
	new := decode(`
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
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
              size: {type: string, enum: [small, large], description: The widget's size.}
              replicas: {type: integer, maximum: 5}
`)
	for _, c := range compare.Revisions(old, new, compare.Options{}) {
		where := "NEW"
		if c.InOld {
			where = "OLD"
		}
		fmt.Printf("%s %s\n  %s %s\n  %s\n", c.Severity, c.Rule, where, c.Path, c.Message)
	}
	// Output:
	// error upgrade-field-removed
	//   OLD spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[color]
	//   field "color" removed: stored values are pruned on the next write, and clients setting it lose it
	// error upgrade-bound-tightened
	//   NEW spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[replicas].maximum
	//   maximum tightened from 10 to 5: values above 5 are refused
	// error upgrade-enum-removed
	//   NEW spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[size].enum
	//   enum value "medium" removed: objects holding it are refused
}
