package engine

import (
	"fmt"
	"sort"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/version"
)

// DeprecationWarning is the warning the server sends for a request to this
// version when it is deprecated (Spec.Deprecated): the CRD's
// deprecationWarning, or the server's default text.
func (v *Version) DeprecationWarning() string { return deprecationWarning(v.crd, v.GVK.Version) }

// deprecationWarning is the warning for version ver of crd, as
// customresource_handler.go's defaultDeprecationWarning words it when
// the CRD says none.
func deprecationWarning(crd *apiextensionsv1.CustomResourceDefinition, ver string) string {
	s := &crd.Spec
	for i := range s.Versions {
		if v := &s.Versions[i]; v.Name == ver && v.DeprecationWarning != nil {
			return *v.DeprecationWarning
		}
	}
	msg := fmt.Sprintf("%s/%s %s is deprecated", s.Group, ver, s.Names.Kind)
	var newer []string
	for i := range s.Versions {
		if v := &s.Versions[i]; v.Served && !v.Deprecated && version.CompareKubeAwareVersionStrings(ver, v.Name) < 0 {
			newer = append(newer, v.Name)
		}
	}
	if len(newer) == 0 {
		return msg
	}
	sort.Slice(newer, func(i, j int) bool {
		return version.CompareKubeAwareVersionStrings(newer[i], newer[j]) > 0
	})
	return msg + fmt.Sprintf("; use %s/%s %s", s.Group, newer[0], s.Names.Kind)
}
