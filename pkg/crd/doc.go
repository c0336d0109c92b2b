// Package crd serves custom resources the way the API server serves them
// once their CustomResourceDefinition is established: it compiles, once
// per CRD version, what the server's CRD handler builds (structural
// schema with pruned defaults, OpenAPI validator, custom resource strategy
// with its CEL programs) and runs a create through the server's own steps
// (decode, prune, coerce, default, BeforeCreate's validation).
//
// It prints nothing and knows no files or positions: lint turns its
// verdicts into findings, prune writes its objects back.
//
//	cat := crd.NewCatalog()
//	cat.Add(v1crd, "crds/widget.yaml")
//	v, st := cat.Lookup(schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"})
//	if st == crd.Found {
//		verdict := v.Create(jsonBytes)
//	}
package crd
