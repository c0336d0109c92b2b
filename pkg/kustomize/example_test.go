package kustomize_test

import (
	"fmt"
	"path/filepath"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/kustomize"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
)

func ExampleRender() {
	r, err := kustomize.Render("testdata/repo/overlays/dev")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, o := range r.Objects {
		fmt.Printf("%s <- %s:%d:%d\n", o.Object, filepath.ToSlash(o.Origin.Path), o.Origin.Line, o.Origin.Column)
	}
	// A finding on the rendered stream, as a linter reports it...
	f := report.Finding{Rule: "cr-schema", Field: "spec.color", File: r.Name, Document: 3, Line: 58, Column: 3}
	// ...lands in the patch that wrote the value.
	m := r.Map(f)
	fmt.Printf("%s:%d:%d -> %s:%d:%d\n", f.File, f.Line, f.Column, filepath.ToSlash(m.File), m.Line, m.Column)
	// Output:
	// CustomResourceDefinition widgets.example.com <- testdata/repo/base/crd.yaml:1:1
	// ConfigMap shop/dev-settings-8mf449b2gf <- testdata/repo/overlays/dev/kustomization.yaml:23:5
	// Widget shop/dev-probe <- testdata/repo/components/monitoring/probe.yaml:1:1
	// Widget shop/dev-web <- testdata/repo/base/widgets.yaml:2:1
	// Widget shop/dev-web-api <- testdata/repo/base/widgets.yaml:14:1
	// kustomize build testdata/repo/overlays/dev:58:3 -> testdata/repo/overlays/dev/color.yaml:7:3
}
