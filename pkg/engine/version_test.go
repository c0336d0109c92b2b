package engine

import (
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
