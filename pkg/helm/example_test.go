package helm_test

import (
	"fmt"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/helm"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
)

func ExampleParse() {
	stream := []byte(`---
# Source: shop/templates/widgets.yaml
apiVersion: example.com/v1
kind: Widget
metadata:
  name: shop-web
spec:
  color: purple
---
# Source: shop/charts/db/templates/widget.yaml
apiVersion: example.com/v1
kind: Widget
metadata:
  name: shop-db
`)
	srcs := helm.Parse(stream)
	for _, s := range srcs {
		fmt.Printf("document %d at line %d: %s\n", s.Document, s.Line, s.Path)
	}
	// A finding on the stream names its template too.
	f := report.Finding{File: "<stdin>", Document: 0, Line: 8, Column: 3, Field: "spec.color"}
	fmt.Printf("%s:%d:%d (%s)\n", f.File, f.Line, f.Column, srcs.Path(f.Document))
	// Output:
	// document 0 at line 2: shop/templates/widgets.yaml
	// document 1 at line 10: shop/charts/db/templates/widget.yaml
	// <stdin>:8:3 (shop/templates/widgets.yaml)
}
