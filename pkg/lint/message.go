package lint

import (
	"encoding/json"
	"reflect"
	"regexp"
	"strconv"
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

// decodeErrorRE reads the JSON type and the Go field path of a decoding
// error: "json: cannot unmarshal string into Go struct field
// CustomResourceDefinitionVersion.spec.versions.served of type bool".
var decodeErrorRE = regexp.MustCompile(`cannot unmarshal (\w+) into Go struct field \w+\.(\S+) of type`)

// decodePath finds the value a decoding error is about in the object the
// document sends: the error names the field without list indexes, so the
// first value of the named JSON type at that path is the one, and its
// path with indexes is where the finding belongs. "" when not found.
func decodePath(js []byte, err error) string {
	m := decodeErrorRE.FindStringSubmatch(err.Error())
	if m == nil {
		return ""
	}
	var v any
	if json.Unmarshal(js, &v) != nil {
		return ""
	}
	return findTyped(v, strings.Split(m[2], "."), m[1], "")
}

func findTyped(v any, segs []string, jsonType, path string) string {
	if len(segs) == 0 {
		if jsonTypeOf(v) == jsonType {
			return path
		}
		return ""
	}
	switch t := v.(type) {
	case map[string]any:
		next, ok := t[segs[0]]
		if !ok {
			return ""
		}
		p := segs[0]
		if path != "" {
			p = path + "." + segs[0]
		}
		return findTyped(next, segs[1:], jsonType, p)
	case []any:
		for i, item := range t {
			if p := findTyped(item, segs, jsonType, path+"["+strconv.Itoa(i)+"]"); p != "" {
				return p
			}
		}
	}
	return ""
}

// jsonTypeOf names a decoded value's JSON type as encoding/json's errors do.
func jsonTypeOf(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case float64, json.Number:
		return "number"
	case bool:
		return "bool"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return ""
}
