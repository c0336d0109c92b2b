package crdtest_test

import (
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crdtest"
)

// A CEL validation table as envtest runs it, with the client's Create
// and Update replaced by the Server's.
func Example() {
	srv, err := crdtest.Load("testdata/suites/widgets-crd.yaml")
	if err != nil {
		panic(err)
	}
	widget := func(spec map[string]any) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "example.com/v1", "kind": "Widget",
			"metadata": map[string]any{"name": "w"}, "spec": spec,
		}}
	}

	// Create fills the object in as stored: defaulted.
	w := widget(map[string]any{"class": "gold"})
	if err := srv.Create(w); err != nil {
		panic(err)
	}
	fmt.Println("size defaulted to", w.Object["spec"].(map[string]any)["size"])

	// A transition rule: the error is the API server's.
	err = srv.Update(w, widget(map[string]any{"class": "silver"}))
	fmt.Println(apierrors.IsInvalid(err))
	fmt.Println(err)
	for _, c := range err.(apierrors.APIStatus).Status().Details.Causes {
		fmt.Println(c.Type, c.Field)
	}
	// Output:
	// size defaulted to 3
	// true
	// Widget.example.com "w" is invalid: spec.class: Invalid value: "silver": class is immutable
	// FieldValueInvalid spec.class
}
