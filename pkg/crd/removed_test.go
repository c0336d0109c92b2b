package crd

import "testing"

// TestRemoved: a file of CRDs that yields none a server serves says why
// when its CRDs are of a removed apiextensions version; a file with a v1
// CRD, or no CRD at all, says nothing.
func TestRemoved(t *testing.T) {
	const v1beta1 = "apiVersion: apiextensions.k8s.io/v1beta1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.example.com\nspec:\n  group: example.com\n"
	const v1 = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: gadgets.example.com\nspec:\n  group: example.com\n"
	tests := []struct {
		name, data, want string
	}{
		{"no CRD", "kind: ConfigMap\napiVersion: v1\n", ""},
		{"a v1 CRD", v1, ""},
		{"a v1beta1 CRD", v1beta1, "CustomResourceDefinition widgets.example.com (crds.yaml:1) is apiextensions.k8s.io/v1beta1, which Kubernetes 1.22 and later no longer serve; use apiextensions.k8s.io/v1"},
		{"two", v1beta1 + "---\n" + v1beta1, "its 2 CustomResourceDefinitions are not apiextensions.k8s.io/v1: CustomResourceDefinition widgets.example.com (crds.yaml:1) is apiextensions.k8s.io/v1beta1, which Kubernetes 1.22 and later no longer serve; use apiextensions.k8s.io/v1"},
		{"beside a v1 one", v1beta1 + "---\n" + v1, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Removed("crds.yaml", []byte(tt.data)); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
