package immutable

import (
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Problem is a misplaced or invalid marker in a CRD schema.
type Problem struct {
	// Path is the field path of the extension in the API server's
	// notation, e.g.
	// spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-mutability.
	Path string
	// Message is the body of the field.Error, e.g.
	// `Forbidden: must not be used at the root`.
	Message string
}

// String renders the problem as the API server renders a field.Error.
func (p Problem) String() string { return p.Path + ": " + p.Message }

// Messages of the placement rules (the detail of the field.Error).
const (
	msgRoot       = "must not be used at the root"
	msgMetadata   = "must not be used inside metadata"
	msgJunctor    = "must not be used inside allOf, anyOf, oneOf or not"
	msgKeyOnProps = "must not be used on objects with properties, only on arrays and on maps (objects with additionalProperties)"
	msgKeyOnOther = "must only be used on arrays and on maps (objects with additionalProperties)"
	msgNotString  = "must be a string"
)

// ValidatePlacement applies the KEP's rules on where the two extensions may
// be used to the schema s, whose own path is rootPath (e.g.
// "spec.versions[0].schema.openAPIV3Schema"; "" for none):
//
//   - neither extension at the root, nor anywhere inside the root's
//     metadata or the metadata of an x-kubernetes-embedded-resource;
//   - neither inside allOf, anyOf, oneOf or not (they would have no
//     effect there);
//   - x-kubernetes-key-mutability only on arrays and on maps (objects with
//     additionalProperties), not on objects with properties nor on scalars;
//   - x-kubernetes-mutability AddOnly and RemoveOnly not on arrays and maps
//     (only Immutable);
//   - values must be strings among Immutable, AddOnly, RemoveOnly.
//
// Problems come in schema order (properties sorted by name).
func ValidatePlacement(s *Schema, rootPath string) []Problem {
	if s == nil {
		return nil
	}
	var ps []Problem
	placement(s, rootPath, true, false, false, &ps)
	return ps
}

// ValidateObject runs ValidatePlacement on every version's schema of a CRD
// decoded as generic JSON, with the version's path as root path.
func ValidateObject(crd map[string]any) ([]Problem, error) {
	spec, _ := crd["spec"].(map[string]any)
	var ps []Problem
	check := func(raw map[string]any, path string) error {
		s, err := parse(raw, path)
		if err != nil {
			return err
		}
		ps = append(ps, ValidatePlacement(s, path)...)
		return nil
	}
	if val, _ := spec["validation"].(map[string]any); val != nil {
		if o, ok := val["openAPIV3Schema"].(map[string]any); ok {
			if err := check(o, "spec.validation.openAPIV3Schema"); err != nil {
				return nil, err
			}
		}
	}
	versions, _ := spec["versions"].([]any)
	for i, v := range versions {
		vm, _ := v.(map[string]any)
		sch, _ := vm["schema"].(map[string]any)
		if o, ok := sch["openAPIV3Schema"].(map[string]any); ok {
			if err := check(o, fmt.Sprintf("spec.versions[%d].schema.openAPIV3Schema", i)); err != nil {
				return nil, err
			}
		}
	}
	return ps, nil
}

func placement(s *Schema, path string, root, inMetadata, inJunctor bool, ps *[]Problem) {
	add := func(ext string, e *field.Error) {
		*ps = append(*ps, Problem{Path: join(path, ext), Message: e.ErrorBody()})
	}
	where := ""
	switch {
	case root:
		where = msgRoot
	case inMetadata:
		where = msgMetadata
	case inJunctor:
		where = msgJunctor
	}
	if s.HasMutability {
		switch {
		case where != "":
			add(MutabilityExtension, field.Forbidden(nil, where))
		case s.MutabilityNotString:
			add(MutabilityExtension, field.Invalid(nil, json.RawMessage(s.Mutability), msgNotString))
		case !supported(s.Mutability):
			add(MutabilityExtension, field.NotSupported(nil, s.Mutability, Values))
		case s.Mutability != Immutable && (s.IsArray() || s.IsMap()):
			add(MutabilityExtension, field.NotSupported(nil, s.Mutability, []string{Immutable}))
		}
	}
	if s.HasKeyMutability {
		switch {
		case where != "":
			add(KeyMutabilityExtension, field.Forbidden(nil, where))
		case !s.IsArray() && !s.IsMap() && len(s.Properties) > 0:
			add(KeyMutabilityExtension, field.Forbidden(nil, msgKeyOnProps))
		case !s.IsArray() && !s.IsMap():
			add(KeyMutabilityExtension, field.Forbidden(nil, msgKeyOnOther))
		case s.KeyMutabilityNotString:
			add(KeyMutabilityExtension, field.Invalid(nil, json.RawMessage(s.KeyMutability), msgNotString))
		case !supported(s.KeyMutability):
			add(KeyMutabilityExtension, field.NotSupported(nil, s.KeyMutability, Values))
		}
	}
	for _, name := range sortedKeys(s.Properties) {
		meta := inMetadata || (name == "metadata" && (root || s.EmbeddedResource))
		placement(s.Properties[name], join(path, "properties["+name+"]"), false, meta, inJunctor, ps)
	}
	if s.Items != nil {
		placement(s.Items, join(path, "items"), false, inMetadata, inJunctor, ps)
	}
	if s.AdditionalProperties != nil {
		placement(s.AdditionalProperties, join(path, "additionalProperties"), false, inMetadata, inJunctor, ps)
	}
	for _, j := range s.Junctors {
		placement(j.Schema, join(path, j.Segment), false, inMetadata, true, ps)
	}
}

func supported(v string) bool {
	for _, s := range Values {
		if v == s {
			return true
		}
	}
	return false
}
