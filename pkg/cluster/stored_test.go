package cluster

import (
	"slices"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestStorageRef(t *testing.T) {
	v := func(name string, served, storage bool) apiextensionsv1.CustomResourceDefinitionVersion {
		return apiextensionsv1.CustomResourceDefinitionVersion{Name: name, Served: served, Storage: storage}
	}
	for _, tt := range []struct {
		name     string
		versions []apiextensionsv1.CustomResourceDefinitionVersion
		want     string
	}{
		{"storage served", []apiextensionsv1.CustomResourceDefinitionVersion{v("v1alpha1", true, false), v("v1", true, true)}, "widgets.v1.example.com"},
		{"storage first", []apiextensionsv1.CustomResourceDefinitionVersion{v("v1", true, true), v("v2", true, false)}, "widgets.v1.example.com"},
		{"storage not served", []apiextensionsv1.CustomResourceDefinitionVersion{v("v1", false, true), v("v2", true, false)}, "widgets.example.com"},
		{"no versions", nil, "widgets.example.com"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := &apiextensionsv1.CustomResourceDefinition{Spec: apiextensionsv1.CustomResourceDefinitionSpec{
				Group:    "example.com",
				Names:    apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Kind: "Widget"},
				Versions: tt.versions,
			}}
			if got := StorageRef(c); got != tt.want {
				t.Errorf("StorageRef = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestWrittenIn(t *testing.T) {
	for _, tt := range []struct {
		name     string
		managers []string // apiVersion of each managedFields entry
		want     []string
	}{
		{"none", nil, nil},
		{"one", []string{"example.com/v1"}, []string{"v1"}},
		{"sorted, each once", []string{"example.com/v2", "example.com/v1", "example.com/v2"}, []string{"v1", "v2"}},
		{"other groups left out", []string{"other.example.com/v1", "v1", "example.com/v1beta1"}, []string{"v1beta1"}},
		{"malformed left out", []string{"a/b/c", "example.com/v1"}, []string{"v1"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			u := &unstructured.Unstructured{}
			u.SetAPIVersion("example.com/v2")
			u.SetKind("Widget")
			var mf []metav1.ManagedFieldsEntry
			for _, av := range tt.managers {
				mf = append(mf, metav1.ManagedFieldsEntry{Manager: "m", APIVersion: av})
			}
			u.SetManagedFields(mf)
			if got := WrittenIn(u); !slices.Equal(got, tt.want) {
				t.Errorf("WrittenIn = %q, want %q", got, tt.want)
			}
		})
	}
}
