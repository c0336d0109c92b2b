package agreement_test

import (
	"context"
	"slices"
	"sort"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/apiservertest"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/engine"
)

// statusCRD has the status subresource, a status schema with value
// constraints, a CEL rule and a transition rule on status, and a spec
// with constraints of its own, which a status update leaves alone.
const statusCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.example.org}
spec:
  group: example.org
  scope: Namespaced
  names: {plural: gadgets, singular: gadget, kind: Gadget, listKind: GadgetList}
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer, minimum: 1}
          status:
            type: object
            x-kubernetes-validations:
            - rule: "!has(self.ready) || !self.ready || self.replicas > 0"
              message: a ready gadget has replicas
            properties:
              replicas:
                type: integer
                minimum: 0
                x-kubernetes-validations:
                - {rule: "self >= oldSelf", message: replicas never go down}
              phase: {type: string, enum: [Pending, Running]}
              ready: {type: boolean}
              tags: {type: array, x-kubernetes-list-type: set, items: {type: string}}
`

// TestStatusUpdate: engine.Version.UpdateStatus agrees with a real API
// server's PUT of the status subresource (dry run) on what it refuses
// and why: the status schema alone, list types, CEL and transition
// rules, the spec of the request ignored.
func TestStatusUpdate(t *testing.T) {
	srv := apiservertest.Start(t, apiservertest.Options{})
	var crdObj map[string]any
	if err := yaml.Unmarshal([]byte(statusCRD), &crdObj); err != nil {
		t.Fatal(err)
	}
	applied := srv.ApplyCRD(t, crdObj)
	v, err := engine.Compile(applied, "v1")
	if err != nil {
		t.Fatal(err)
	}
	created := srv.Create(t, map[string]any{
		"apiVersion": "example.org/v1", "kind": "Gadget",
		"metadata": map[string]any{"name": "g", "namespace": "default"},
		"spec":     map[string]any{"size": int64(2)},
	})
	// A first status, stored, that the cases then change.
	gvr, _, err := srv.Resource(created.GroupVersionKind())
	if err != nil {
		t.Fatal(err)
	}
	ri := srv.Dynamic(t).Resource(gvr).Namespace("default")
	withStatus := created.DeepCopy()
	withStatus.Object["status"] = map[string]any{"replicas": int64(2), "phase": "Pending"}
	stored, err := ri.UpdateStatus(context.Background(), withStatus, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name   string
		edit   func(obj map[string]any)
		refuse bool
	}{
		{"valid", func(o map[string]any) { status(o)["replicas"] = int64(3) }, false},
		{"below minimum", func(o map[string]any) { status(o)["replicas"] = int64(-1) }, true},
		{"not in enum", func(o map[string]any) { status(o)["phase"] = "Gone" }, true},
		{"wrong type", func(o map[string]any) { status(o)["ready"] = "yes" }, true},
		{"CEL rule", func(o map[string]any) { status(o)["ready"] = true; status(o)["replicas"] = int64(0) }, true},
		{"transition rule", func(o map[string]any) { status(o)["replicas"] = int64(1) }, true},
		{"set with duplicates", func(o map[string]any) { status(o)["tags"] = []any{"a", "a"} }, true},
		{"spec invalid, ignored", func(o map[string]any) { o["spec"] = map[string]any{"size": int64(0)} }, false},
		{"status removed", func(o map[string]any) { delete(o, "status") }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := stored.DeepCopy()
			tt.edit(req.Object)
			_, serr := ri.UpdateStatus(context.Background(), req.DeepCopy(), metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}})
			vd := v.UpdateStatus(runtime.DeepCopyJSON(stored.Object), runtime.DeepCopyJSON(req.Object), "default")
			if vd.DecodeError != nil || vd.Panic != "" {
				t.Fatalf("engine: %v %s", vd.DecodeError, vd.Panic)
			}
			var want []string
			if st, ok := serr.(apierrors.APIStatus); ok && st.Status().Details != nil {
				for _, c := range st.Status().Details.Causes {
					want = append(want, c.Field+": "+c.Message)
				}
			} else if serr != nil {
				t.Fatalf("server: %v", serr)
			}
			var got []string
			for _, e := range vd.Errors {
				got = append(got, e.Field+": "+e.ErrorBody())
			}
			sort.Strings(want)
			sort.Strings(got)
			if (serr != nil) != tt.refuse {
				t.Errorf("server refused: %v, want %v (%v)", serr != nil, tt.refuse, serr)
			}
			if !slices.Equal(got, want) {
				t.Errorf("engine's errors\n%q\nserver's\n%q", got, want)
			}
		})
	}

	// A version without the status subresource has no status endpoint.
	if vd := withoutStatus(t, applied).UpdateStatus(runtime.DeepCopyJSON(stored.Object), runtime.DeepCopyJSON(stored.Object), "default"); vd.DecodeError == nil {
		t.Errorf("a status update of a version without the status subresource was judged: %+v", vd)
	}
}

func status(obj map[string]any) map[string]any {
	s, _ := obj["status"].(map[string]any)
	if s == nil {
		s = map[string]any{}
		obj["status"] = s
	}
	return s
}

// withoutStatus is version v1 of crd compiled without its status
// subresource.
func withoutStatus(t *testing.T, crd *apiextensionsv1.CustomResourceDefinition) *engine.Version {
	t.Helper()
	c := crd.DeepCopy()
	c.Spec.Versions[0].Subresources = nil
	v, err := engine.Compile(c, "v1")
	if err != nil {
		t.Fatal(err)
	}
	return v
}
