package immutable

import (
	"encoding/json"
	"fmt"
	"sort"
)

// The two vendor extensions of the KEP.
const (
	MutabilityExtension    = "x-kubernetes-mutability"
	KeyMutabilityExtension = "x-kubernetes-key-mutability"
)

// The values both extensions accept.
const (
	Immutable  = "Immutable"
	AddOnly    = "AddOnly"
	RemoveOnly = "RemoveOnly"
)

// Values lists the supported marker values in the KEP's order.
var Values = []string{Immutable, AddOnly, RemoveOnly}

// Schema is a node of an openAPIV3Schema as far as immutability needs it.
// Unlike apiextensionsv1.JSONSchemaProps it keeps the two vendor extensions.
type Schema struct {
	Type       string
	Properties map[string]*Schema
	Items      *Schema
	// AdditionalProperties is the schema of additionalProperties, if it is
	// a schema. AdditionalPropertiesBool is set if it is a bool (true or
	// false); true means a map of anything.
	AdditionalProperties     *Schema
	AdditionalPropertiesBool *bool

	ListType              string   // x-kubernetes-list-type
	ListMapKeys           []string // x-kubernetes-list-map-keys
	MapType               string   // x-kubernetes-map-type
	PreserveUnknownFields bool     // x-kubernetes-preserve-unknown-fields
	EmbeddedResource      bool     // x-kubernetes-embedded-resource

	// Mutability and KeyMutability are the marker values ("" if unset).
	// HasMutability / HasKeyMutability tell a present empty string or
	// non-string value (Mutability then holds its JSON form) from an
	// absent marker; MutabilityNotString / KeyMutabilityNotString flag
	// non-string values.
	Mutability             string
	HasMutability          bool
	MutabilityNotString    bool
	KeyMutability          string
	HasKeyMutability       bool
	KeyMutabilityNotString bool

	// Junctors are the subschemas of allOf, anyOf, oneOf and not, keyed by
	// their path segment ("allOf[0]", "not", ...). They are only kept to
	// report markers used inside them; Compare ignores them.
	Junctors []Junctor
}

// Junctor is a subschema under allOf, anyOf, oneOf or not.
type Junctor struct {
	Segment string // "allOf[0]", "anyOf[1]", "oneOf[0]", "not"
	Schema  *Schema
}

// IsArray reports whether s describes an array.
func (s *Schema) IsArray() bool {
	return s != nil && (s.Type == "array" || (s.Type == "" && s.Items != nil))
}

// IsMap reports whether s describes a map (an object with
// additionalProperties that is a schema or true).
func (s *Schema) IsMap() bool {
	if s == nil || (s.Type != "object" && s.Type != "") {
		return false
	}
	return s.AdditionalProperties != nil || (s.AdditionalPropertiesBool != nil && *s.AdditionalPropertiesBool)
}

// ParseSchema parses a raw JSON schema (an openAPIV3Schema decoded into
// map[string]any) into a Schema. It fails only on shapes no JSON schema can
// have (properties not an object, list-map-keys not a list of strings,
// ...); marker values are kept as they are and judged by ValidatePlacement.
func ParseSchema(raw map[string]any) (*Schema, error) {
	return parse(raw, "")
}

func parse(raw map[string]any, path string) (*Schema, error) {
	s := &Schema{}
	at := func(k string) string { return join(path, k) }
	var err error
	if s.Type, err = optString(raw, "type", path); err != nil {
		return nil, err
	}
	if s.ListType, err = optString(raw, "x-kubernetes-list-type", path); err != nil {
		return nil, err
	}
	if s.MapType, err = optString(raw, "x-kubernetes-map-type", path); err != nil {
		return nil, err
	}
	if s.PreserveUnknownFields, err = optBool(raw, "x-kubernetes-preserve-unknown-fields", path); err != nil {
		return nil, err
	}
	if s.EmbeddedResource, err = optBool(raw, "x-kubernetes-embedded-resource", path); err != nil {
		return nil, err
	}
	if v, ok := raw["x-kubernetes-list-map-keys"]; ok && v != nil {
		l, ok := v.([]any)
		if !ok {
			return nil, fmt.Errorf("%s: must be a list of strings", at("x-kubernetes-list-map-keys"))
		}
		for i, k := range l {
			ks, ok := k.(string)
			if !ok {
				return nil, fmt.Errorf("%s[%d]: must be a string", at("x-kubernetes-list-map-keys"), i)
			}
			s.ListMapKeys = append(s.ListMapKeys, ks)
		}
	}
	s.Mutability, s.HasMutability, s.MutabilityNotString = marker(raw, MutabilityExtension)
	s.KeyMutability, s.HasKeyMutability, s.KeyMutabilityNotString = marker(raw, KeyMutabilityExtension)

	if v, ok := raw["properties"]; ok && v != nil {
		props, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: must be an object", at("properties"))
		}
		s.Properties = make(map[string]*Schema, len(props))
		for _, name := range sortedKeys(props) {
			sub, ok := props[name].(map[string]any)
			p := at("properties[" + name + "]")
			if !ok {
				return nil, fmt.Errorf("%s: must be an object", p)
			}
			if s.Properties[name], err = parse(sub, p); err != nil {
				return nil, err
			}
		}
	}
	if v, ok := raw["items"]; ok && v != nil {
		sub, ok := v.(map[string]any)
		if !ok {
			// A list of schemas (tuple validation) is not allowed in
			// structural schemas.
			return nil, fmt.Errorf("%s: must be a schema object", at("items"))
		}
		if s.Items, err = parse(sub, at("items")); err != nil {
			return nil, err
		}
	}
	if v, ok := raw["additionalProperties"]; ok && v != nil {
		switch ap := v.(type) {
		case bool:
			s.AdditionalPropertiesBool = &ap
		case map[string]any:
			if s.AdditionalProperties, err = parse(ap, at("additionalProperties")); err != nil {
				return nil, err
			}
		default:
			return nil, fmt.Errorf("%s: must be a schema object or a bool", at("additionalProperties"))
		}
	}
	for _, j := range []string{"allOf", "anyOf", "oneOf"} {
		v, ok := raw[j]
		if !ok || v == nil {
			continue
		}
		l, ok := v.([]any)
		if !ok {
			return nil, fmt.Errorf("%s: must be a list of schemas", at(j))
		}
		for i, e := range l {
			seg := fmt.Sprintf("%s[%d]", j, i)
			m, ok := e.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s: must be a schema object", at(seg))
			}
			sub, err := parse(m, at(seg))
			if err != nil {
				return nil, err
			}
			s.Junctors = append(s.Junctors, Junctor{Segment: seg, Schema: sub})
		}
	}
	if v, ok := raw["not"]; ok && v != nil {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: must be a schema object", at("not"))
		}
		sub, err := parse(m, at("not"))
		if err != nil {
			return nil, err
		}
		s.Junctors = append(s.Junctors, Junctor{Segment: "not", Schema: sub})
	}
	return s, nil
}

// marker reads a marker: its value ("" or the JSON form of a non-string),
// whether it is present (a JSON null counts as absent) and whether it is
// not a string.
func marker(raw map[string]any, key string) (value string, present, notString bool) {
	v, ok := raw[key]
	if !ok || v == nil {
		return "", false, false
	}
	if s, ok := v.(string); ok {
		return s, true, false
	}
	b, _ := json.Marshal(v)
	return string(b), true, true
}

func optString(raw map[string]any, key, path string) (string, error) {
	v, ok := raw[key]
	if !ok || v == nil {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("%s: must be a string", join(path, key))
	}
	return s, nil
}

func optBool(raw map[string]any, key, path string) (bool, error) {
	v, ok := raw[key]
	if !ok || v == nil {
		return false, nil
	}
	b, ok := v.(bool)
	if !ok {
		return false, fmt.Errorf("%s: must be a bool", join(path, key))
	}
	return b, nil
}

func join(path, seg string) string {
	if path == "" {
		return seg
	}
	return path + "." + seg
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// FromObject parses the openAPIV3Schema of the named version of a CRD
// decoded as generic JSON. It reads spec.versions[i].schema.openAPIV3Schema,
// falling back to the v1beta1 spec.validation.openAPIV3Schema shared by
// all versions. An empty version selects the only version of a
// single-version CRD.
func FromObject(crd map[string]any, version string) (*Schema, error) {
	raw, _, err := versionSchemaOf(crd, version)
	if err != nil {
		return nil, err
	}
	return parse(raw, "")
}

func versionSchemaOf(crd map[string]any, version string) (map[string]any, string, error) {
	spec, _ := crd["spec"].(map[string]any)
	if spec == nil {
		return nil, "", fmt.Errorf("CRD has no spec")
	}
	versions, _ := spec["versions"].([]any)
	idx := -1
	if version == "" {
		if len(versions) != 1 {
			return nil, "", fmt.Errorf("CRD has %d versions: name one", len(versions))
		}
		idx = 0
	}
	var names []string
	for i, v := range versions {
		vm, _ := v.(map[string]any)
		name, _ := vm["name"].(string)
		names = append(names, name)
		if idx < 0 && name == version {
			idx = i
		}
	}
	if idx < 0 {
		// v1beta1: a single top-level version.
		if v, _ := spec["version"].(string); v == "" || v != version {
			return nil, "", fmt.Errorf("CRD has no version %q (versions: %v)", version, names)
		}
	}
	if idx >= 0 {
		vm, _ := versions[idx].(map[string]any)
		if sch, _ := vm["schema"].(map[string]any); sch != nil {
			if o, ok := sch["openAPIV3Schema"].(map[string]any); ok {
				return o, fmt.Sprintf("spec.versions[%d].schema.openAPIV3Schema", idx), nil
			}
		}
	}
	if val, _ := spec["validation"].(map[string]any); val != nil {
		if o, ok := val["openAPIV3Schema"].(map[string]any); ok {
			return o, "spec.validation.openAPIV3Schema", nil
		}
	}
	return nil, "", fmt.Errorf("CRD version %q has no openAPIV3Schema", version)
}
