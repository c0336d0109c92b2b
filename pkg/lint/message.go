package lint

import (
	"encoding/json"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
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

// schemaField is the field of a path into a CRD document that the strict
// decoder spells with dots (...openAPIV3Schema.properties.spec.type), in
// the notation and the server's spelling (...properties[spec].type): the
// document's keys say where a key with dots ends, and the key after a
// schema keyword is a map key, in brackets.
func schemaField(d *source.Document, p string) string {
	return source.JoinPath(schemaBrackets(d.Resolve(p).Segments))
}

// schemaBrackets marks the keys after schema keywords in a CRD's path as
// map keys (brackets), as the server writes them.
func schemaBrackets(segs []source.Segment) []source.Segment {
	for i, s := range segs {
		if s.Name != "openAPIV3Schema" || s.Bracket {
			continue
		}
		for j := i + 1; j < len(segs); j++ {
			if schemaKeywords[segs[j].Name] && !segs[j].Bracket && j+1 < len(segs) {
				segs[j+1].Bracket = true
				j++
			}
		}
		break
	}
	return segs
}

// decodeErrorRE reads the JSON type and the Go field path of a decoding
// error: "json: cannot unmarshal string into Go struct field
// CustomResourceDefinitionVersion.spec.versions.served of type bool"; a
// number is followed by its text ("number 1.5 into").
var decodeErrorRE = regexp.MustCompile(`cannot unmarshal (\w+)(?: \S+)? into Go struct field \w+\.(\S+) of type`)

// pathless are the decoding errors of apiextensions' own unmarshalers,
// which name no field, with the keys they decode and the JSON types they
// take (JSONSchemaPropsOrBool: additionalProperties, additionalItems).
var pathless = map[string]struct {
	keys  []string
	takes []string
}{
	"boolean or JSON schema expected": {[]string{"additionalProperties", "additionalItems"}, []string{"bool", "object", ""}},
}

// decodeValue finds the value a decoding error of the object js is
// about, under the Go field path's prefix (the path of the struct the
// decoder was given, nil for the whole object): the error names the
// path of Go struct fields without list indexes or map keys
// (spec.versions.schema.openAPIV3Schema.properties.properties.maximum),
// so the first value in the decoder's order (keys sorted, as the JSON
// kubectl sends them) that has the named JSON type and a path of those
// fields, through any lists and maps, is the one. It returns that path,
// the fields as names and the map keys and indexes in brackets, and
// false when no value fits.
func decodeValue(js []byte, err error, prefix ...string) ([]source.Segment, bool) {
	var v any
	if json.Unmarshal(js, &v) != nil {
		return nil, false
	}
	msg := err.Error()
	if p, ok := pathless[msg]; ok {
		return findKeyed(v, p.keys, p.takes)
	}
	m := decodeErrorRE.FindStringSubmatch(msg)
	if m == nil {
		return nil, false
	}
	segs := append(append([]string{}, prefix...), strings.Split(m[2], ".")...)
	if p, ok := newTypedSearch(m[1]).find(v, segs); ok {
		return p, true
	}
	// A type encoding/json names otherwise than jsonTypeOf: the path
	// alone.
	return newTypedSearch("").find(v, segs)
}

// typedSearch looks for a value of a JSON type ("" for any) at a path of
// Go struct fields, remembering where it failed: maps make several
// readings of a path possible, and a deep object would make them many.
type typedSearch struct {
	jsonType string
	failed   map[searchKey]bool
}

type searchKey struct {
	at   uintptr
	rest int
}

func newTypedSearch(jsonType string) *typedSearch {
	return &typedSearch{jsonType: jsonType, failed: map[searchKey]bool{}}
}

func (s *typedSearch) find(v any, segs []string) ([]source.Segment, bool) {
	if len(segs) == 0 && (s.jsonType == "" || jsonTypeOf(v) == s.jsonType) {
		return nil, true
	}
	switch t := v.(type) {
	case map[string]any:
		k := searchKey{reflect.ValueOf(t).Pointer(), len(segs)}
		if s.failed[k] {
			return nil, false
		}
		for _, name := range sortedKeys(t) {
			// The key is the next struct field, or a key of a Go map.
			if len(segs) > 0 && name == segs[0] {
				if p, ok := s.find(t[name], segs[1:]); ok {
					return append([]source.Segment{{Name: name}}, p...), true
				}
			}
			if p, ok := s.find(t[name], segs); ok {
				return append([]source.Segment{{Name: name, Bracket: true}}, p...), true
			}
		}
		s.failed[k] = true
	case []any:
		if len(t) == 0 {
			return nil, false
		}
		k := searchKey{reflect.ValueOf(t).Pointer(), len(segs)}
		if s.failed[k] {
			return nil, false
		}
		for i, item := range t {
			if p, ok := s.find(item, segs); ok {
				return append([]source.Segment{{Name: strconv.Itoa(i), Bracket: true}}, p...), true
			}
		}
		s.failed[k] = true
	}
	return nil, false
}

// findKeyed is the path of the first value, in the decoder's order, of a
// key among keys whose JSON type is not among takes. Values the decoder
// keeps as raw JSON (default, example, enum) are not looked into, unless
// the key is a property's name.
func findKeyed(v any, keys, takes []string) ([]source.Segment, bool) {
	return findKeyedIn(v, "", keys, takes)
}

func findKeyedIn(v any, parent string, keys, takes []string) ([]source.Segment, bool) {
	switch t := v.(type) {
	case map[string]any:
		for _, name := range sortedKeys(t) {
			if slices.Contains(keys, name) && !slices.Contains(takes, jsonTypeOf(t[name])) {
				return []source.Segment{{Name: name}}, true
			}
			if rawJSON[name] && !schemaKeywords[parent] {
				continue
			}
			if p, ok := findKeyedIn(t[name], name, keys, takes); ok {
				return append([]source.Segment{{Name: name}}, p...), true
			}
		}
	case []any:
		for i, item := range t {
			if p, ok := findKeyedIn(item, parent, keys, takes); ok {
				return append([]source.Segment{{Name: strconv.Itoa(i), Bracket: true}}, p...), true
			}
		}
	}
	return nil, false
}

// rawJSON are the schema fields of type JSON: any value decodes.
var rawJSON = map[string]bool{"default": true, "example": true, "enum": true}

// jsonTypeOf names a decoded value's JSON type as encoding/json's errors
// do ("" for null).
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
