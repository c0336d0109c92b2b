package cluster

import (
	"slices"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// StorageRef is the reference that lists a CRD's objects in its storage
// version (RESOURCE.VERSION.GROUP): what storage holds, converted by
// nothing but the server's own decoding. When the storage version is not
// served, the server would refuse that version, so the reference names
// none and the server picks its preferred one.
func StorageRef(c *apiextensionsv1.CustomResourceDefinition) string {
	version := ""
	for _, v := range c.Spec.Versions {
		if v.Storage && v.Served {
			version = v.Name
		}
	}
	if version == "" {
		return c.Spec.Names.Plural + "." + c.Spec.Group
	}
	return c.Spec.Names.Plural + "." + version + "." + c.Spec.Group
}

// WrittenIn are the versions of its own group an object's managers wrote
// it in (managedFields), sorted: the versions its clients use, which a
// rendered object no longer shows (Render omits managed fields).
func WrittenIn(u *unstructured.Unstructured) []string {
	group := u.GroupVersionKind().Group
	var out []string
	for _, m := range u.GetManagedFields() {
		gv, err := schema.ParseGroupVersion(m.APIVersion)
		if err == nil && gv.Group == group && !slices.Contains(out, gv.Version) {
			out = append(out, gv.Version)
		}
	}
	slices.Sort(out)
	return out
}
