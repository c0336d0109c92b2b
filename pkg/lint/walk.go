package lint

import (
	"sort"
	"strconv"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// schemaVisit is one node of a v1 schema with its field path.
type schemaVisit struct {
	s    *apiextensionsv1.JSONSchemaProps
	path string
	// spine is true for nodes reached through properties, items and
	// additionalProperties only (not through junctors, definitions...).
	spine bool
	// meta is true for the metadata property of the root or of an
	// embedded resource, which the server prunes as ObjectMeta.
	meta bool
}

// walkSchema visits s and every subschema below it in a stable order, with
// paths in the server's notation, iteratively (schemas can be deep).
func walkSchema(root *apiextensionsv1.JSONSchemaProps, path string, fn func(schemaVisit)) {
	if root == nil {
		return
	}
	stack := []schemaVisit{{s: root, path: path, spine: true}}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		fn(v)
		s := v.s
		var next []schemaVisit
		embedded := s.XEmbeddedResource || v.path == path
		for _, name := range sortedKeys(s.Properties) {
			p := s.Properties[name]
			next = append(next, schemaVisit{s: &p, path: v.path + ".properties[" + name + "]", spine: v.spine, meta: embedded && name == "metadata"})
		}
		if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
			next = append(next, schemaVisit{s: s.AdditionalProperties.Schema, path: v.path + ".additionalProperties", spine: v.spine})
		}
		if s.Items != nil {
			if s.Items.Schema != nil {
				next = append(next, schemaVisit{s: s.Items.Schema, path: v.path + ".items", spine: v.spine})
			}
			for i := range s.Items.JSONSchemas {
				next = append(next, schemaVisit{s: &s.Items.JSONSchemas[i], path: v.path + ".items[" + strconv.Itoa(i) + "]"})
			}
		}
		for _, j := range []struct {
			name string
			list []apiextensionsv1.JSONSchemaProps
		}{{"allOf", s.AllOf}, {"anyOf", s.AnyOf}, {"oneOf", s.OneOf}} {
			for i := range j.list {
				next = append(next, schemaVisit{s: &j.list[i], path: v.path + "." + j.name + "[" + strconv.Itoa(i) + "]"})
			}
		}
		if s.Not != nil {
			next = append(next, schemaVisit{s: s.Not, path: v.path + ".not"})
		}
		// Push in reverse so that visiting follows document order.
		for i := len(next) - 1; i >= 0; i-- {
			stack = append(stack, next[i])
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// versionSchema returns version i's schema and its path, or nil.
func versionSchema(crd *apiextensionsv1.CustomResourceDefinition, i int) (*apiextensionsv1.JSONSchemaProps, string) {
	v := crd.Spec.Versions[i]
	if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
		return nil, ""
	}
	return v.Schema.OpenAPIV3Schema, "spec.versions[" + strconv.Itoa(i) + "].schema.openAPIV3Schema"
}
