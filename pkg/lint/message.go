package lint

import (
	"reflect"
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// body is a server error's text without its path, as the server words it
// (field.Error.ErrorBody), except where the server prints one of its own
// Go structs as the value: a CEL rule is quoted as its rule text, and a
// whole schema or list of versions is left out (the field says which).
func body(e *field.Error) string {
	switch v := e.BadValue.(type) {
	case apiextensions.ValidationRule:
		return withValue(e, v.Rule)
	case *apiextensions.ValidationRule:
		if v != nil {
			return withValue(e, v.Rule)
		}
	}
	if isStructValue(e.BadValue) {
		return withValue(e, field.OmitValueType{})
	}
	return e.ErrorBody()
}

func withValue(e *field.Error, v any) string {
	c := *e
	c.BadValue = v
	return c.ErrorBody()
}

// isStructValue: a struct, or a pointer to or slice of structs.
func isStructValue(v any) bool {
	if v == nil {
		return false
	}
	t := reflect.TypeOf(v)
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
		t = t.Elem()
	}
	return t.Kind() == reflect.Struct && t != reflect.TypeOf(field.OmitValueType{})
}

// schemaKeywords hold a map of property names: in a schema path the
// strict decoder (and the loader) spell them properties.NAME, the server
// properties[NAME].
var schemaKeywords = map[string]bool{"properties": true, "patternProperties": true, "definitions": true, "dependencies": true}

// schemaPath turns a dotted path into an openAPIV3Schema
// (spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.size)
// into the server's notation (...properties[spec].properties[size]), the
// one every finding's field uses. Other paths are returned as they are.
func schemaPath(p string) string {
	const root = "openAPIV3Schema"
	i := strings.Index(p, root+".")
	if i < 0 {
		return p
	}
	head, rest := p[:i+len(root)], p[i+len(root)+1:]
	parts := strings.Split(rest, ".")
	var b strings.Builder
	b.WriteString(head)
	for j := 0; j < len(parts); j++ {
		if schemaKeywords[parts[j]] && j+1 < len(parts) {
			b.WriteString("." + parts[j] + "[" + parts[j+1] + "]")
			j++
			continue
		}
		b.WriteString("." + parts[j])
	}
	return b.String()
}
