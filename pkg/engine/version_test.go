package engine

import (
	"slices"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/utils/ptr"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/testutil"
)

func TestDeprecationWarning(t *testing.T) {
	tests := []struct {
		name     string
		versions []apiextensionsv1.CustomResourceDefinitionVersion
		ver      string
		want     string
	}{
		{"custom text", []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Deprecated: true, DeprecationWarning: ptr.To("use v2")}}, "v1", "use v2"},
		{"default, newest served", []apiextensionsv1.CustomResourceDefinitionVersion{
			{Name: "v1alpha1", Served: true, Deprecated: true}, {Name: "v1beta1", Served: true}, {Name: "v1", Served: true}, {Name: "v2", Served: false},
		}, "v1alpha1", "example.com/v1alpha1 Widget is deprecated; use example.com/v1 Widget"},
		{"default, nothing newer", []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Deprecated: true}}, "v1", "example.com/v1 Widget is deprecated"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := deprecationWarning(testutil.WidgetCRD(tt.versions...), tt.ver); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestGenerateName(t *testing.T) {
	if got := GenerateName("web-"); got != "web-crdlt" {
		t.Errorf("got %q", got)
	}
	long := strings.Repeat("a", 70)
	if got := GenerateName(long); len(got) != 63 {
		t.Errorf("got length %d, want 63 (58 + 5, as names.SimpleNameGenerator)", len(got))
	}
}

func TestInstalled(t *testing.T) {
	crd := testutil.WidgetCRD(apiextensionsv1.CustomResourceDefinitionVersion{Name: "v1alpha1", Served: true},
		apiextensionsv1.CustomResourceDefinitionVersion{Name: "v1", Served: true, Storage: true})
	c := installed(crd)
	if !slices.Equal(c.Status.StoredVersions, []string{"v1"}) {
		t.Errorf("stored versions %q, want the storage version", c.Status.StoredVersions)
	}
	established := false
	for _, cond := range c.Status.Conditions {
		established = established || cond.Type == apiextensionsv1.Established && cond.Status == apiextensionsv1.ConditionTrue
	}
	if !established || c.Status.AcceptedNames.Kind != "Widget" {
		t.Errorf("status %+v: want established with its names accepted", c.Status)
	}
	if len(crd.Status.Conditions) != 0 || len(crd.Status.StoredVersions) != 0 {
		t.Errorf("installed changed its argument")
	}
	// A CRD read from a cluster keeps its own status.
	crd.Status.StoredVersions = []string{"v1alpha1", "v1"}
	crd.Status.Conditions = []apiextensionsv1.CustomResourceDefinitionCondition{{Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionFalse}}
	c = installed(crd)
	if !slices.Equal(c.Status.StoredVersions, []string{"v1alpha1", "v1"}) || len(c.Status.Conditions) != 1 {
		t.Errorf("a cluster's status was replaced: %+v", c.Status)
	}
}
