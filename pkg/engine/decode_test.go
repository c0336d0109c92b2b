package engine

import (
	"encoding/json"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

// A v1beta1 CRD reads as the v1 CRD the server stores for it: v1beta1's
// defaults (preserveUnknownFields true unless set), the top-level
// version, validation, subresources and columns moved into each version.
func TestCRDFromV1beta1(t *testing.T) {
	for _, tt := range []struct {
		name     string
		yaml     string
		preserve bool
		versions []string
		check    func(t *testing.T, crd *apiextensionsv1.CustomResourceDefinition)
	}{
		{
			name: "one version, top-level schema and subresources",
			yaml: `apiVersion: apiextensions.k8s.io/v1beta1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  version: v1
  subresources: {status: {}}
  additionalPrinterColumns:
  - {name: Size, type: integer, JSONPath: .spec.size}
  validation:
    openAPIV3Schema:
      type: object
      properties:
        spec: {type: object, properties: {size: {type: integer}}}
`,
			preserve: true,
			versions: []string{"v1"},
			check: func(t *testing.T, crd *apiextensionsv1.CustomResourceDefinition) {
				v := crd.Spec.Versions[0]
				if !v.Served || !v.Storage {
					t.Errorf("v1 served %v, storage %v; want both", v.Served, v.Storage)
				}
				if v.Schema == nil || v.Schema.OpenAPIV3Schema.Properties["spec"].Properties["size"].Type != "integer" {
					t.Errorf("v1's schema = %+v, want the top-level validation", v.Schema)
				}
				if v.Subresources == nil || v.Subresources.Status == nil {
					t.Errorf("v1's subresources = %+v, want status", v.Subresources)
				}
				if len(v.AdditionalPrinterColumns) != 1 || v.AdditionalPrinterColumns[0].JSONPath != ".spec.size" {
					t.Errorf("v1's columns = %+v", v.AdditionalPrinterColumns)
				}
			},
		},
		{
			name: "preserveUnknownFields false kept, two versions",
			yaml: `apiVersion: apiextensions.k8s.io/v1beta1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Cluster
  preserveUnknownFields: false
  versions:
  - {name: v1alpha1, served: true, storage: false}
  - {name: v1, served: true, storage: true}
  validation:
    openAPIV3Schema: {type: object}
`,
			versions: []string{"v1alpha1", "v1"},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			js, err := yaml.YAMLToJSON([]byte(tt.yaml))
			if err != nil {
				t.Fatal(err)
			}
			out, err := CRDFromV1beta1(js)
			if err != nil {
				t.Fatal(err)
			}
			var probe map[string]any
			if err := json.Unmarshal(out, &probe); err != nil || probe["apiVersion"] != "apiextensions.k8s.io/v1" {
				t.Fatalf("apiVersion %v (%v), want apiextensions.k8s.io/v1", probe["apiVersion"], err)
			}
			crd, unknown, err := DecodeCRD(out)
			if err != nil || len(unknown) > 0 {
				t.Fatalf("the v1 CRD does not decode strictly: %v %v", err, unknown)
			}
			if crd.Spec.PreserveUnknownFields != tt.preserve {
				t.Errorf("preserveUnknownFields = %v, want %v", crd.Spec.PreserveUnknownFields, tt.preserve)
			}
			var names []string
			for _, v := range crd.Spec.Versions {
				names = append(names, v.Name)
			}
			if len(names) != len(tt.versions) {
				t.Fatalf("versions %v, want %v", names, tt.versions)
			}
			for i := range names {
				if names[i] != tt.versions[i] {
					t.Errorf("versions %v, want %v", names, tt.versions)
				}
			}
			if tt.check != nil {
				tt.check(t, crd)
			}
		})
	}
	if _, err := CRDFromV1beta1([]byte(`{"apiVersion": "apiextensions.k8s.io/v1beta1", "kind": "CustomResourceDefinition", "spec": []}`)); err == nil {
		t.Error("a spec that is a list converted")
	}
}

// FuzzCRDFromV1beta1: whatever a v1beta1 CRD holds, reading it as the
// server stores it never panics, and what it gives decodes as a v1 CRD.
func FuzzCRDFromV1beta1(f *testing.F) {
	f.Add([]byte(`{"apiVersion":"apiextensions.k8s.io/v1beta1","kind":"CustomResourceDefinition","metadata":{"name":"widgets.example.com"},"spec":{"group":"example.com","version":"v1","names":{"kind":"Widget","plural":"widgets"},"scope":"Namespaced","validation":{"openAPIV3Schema":{"type":"object"}}}}`))
	f.Add([]byte(`{"apiVersion":"apiextensions.k8s.io/v1beta1","kind":"CustomResourceDefinition","spec":{"versions":[{"name":"v1","schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}},{"name":"v2"}],"subresources":{"scale":{"specReplicasPath":".spec.r"}},"conversion":{"strategy":"Webhook","webhookClientConfig":{"url":"https://x"}}}}`))
	f.Add([]byte(`{"apiVersion":"apiextensions.k8s.io/v1beta1","kind":"CustomResourceDefinition","spec":{"validation":{"openAPIV3Schema":{"properties":{"a":{"default":{"b":1},"items":[{"type":"string"}]}}}}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := CRDFromV1beta1(data)
		if err != nil {
			return
		}
		if _, _, err := DecodeCRD(out); err != nil {
			t.Fatalf("CRDFromV1beta1 gave %s, which does not decode as v1: %v", out, err)
		}
	})
}
