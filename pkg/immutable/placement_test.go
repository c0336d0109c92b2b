package immutable

import (
	"encoding/json"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

const root = "spec.versions[0].schema.openAPIV3Schema"

func TestValidatePlacement(t *testing.T) {
	tests := []struct {
		name, schema string
		want         []Problem
	}{
		{"valid placements", `
type: object
properties:
  metadata: {type: object}
  spec:
    type: object
    properties:
      s: {type: string, x-kubernetes-mutability: Immutable}
      a: {type: string, x-kubernetes-mutability: AddOnly}
      r: {type: integer, x-kubernetes-mutability: RemoveOnly}
      o: {type: object, x-kubernetes-mutability: AddOnly, properties: {x: {type: string}}}
      l: {type: array, x-kubernetes-mutability: Immutable, x-kubernetes-key-mutability: AddOnly, items: {type: string, x-kubernetes-mutability: RemoveOnly}}
      m: {type: object, x-kubernetes-mutability: Immutable, x-kubernetes-key-mutability: RemoveOnly, additionalProperties: {type: string}}
      mt: {type: object, x-kubernetes-key-mutability: Immutable, additionalProperties: true}
      e:
        type: object
        x-kubernetes-embedded-resource: true
        x-kubernetes-mutability: Immutable
        properties:
          spec: {type: object, properties: {x: {type: string, x-kubernetes-mutability: Immutable}}}
`, nil},
		{"at the root", `{type: object, x-kubernetes-mutability: Immutable, x-kubernetes-key-mutability: Immutable}`, []Problem{
			{root + ".x-kubernetes-mutability", "Forbidden: must not be used at the root"},
			{root + ".x-kubernetes-key-mutability", "Forbidden: must not be used at the root"},
		}},
		{"in metadata", `
type: object
properties:
  metadata:
    type: object
    x-kubernetes-mutability: Immutable
    properties:
      name: {type: string, x-kubernetes-mutability: Immutable}
      labels: {type: object, x-kubernetes-key-mutability: AddOnly, additionalProperties: {type: string}}
`, []Problem{
			{root + ".properties[metadata].x-kubernetes-mutability", "Forbidden: must not be used inside metadata"},
			{root + ".properties[metadata].properties[labels].x-kubernetes-key-mutability", "Forbidden: must not be used inside metadata"},
			{root + ".properties[metadata].properties[name].x-kubernetes-mutability", "Forbidden: must not be used inside metadata"},
		}},
		{"in metadata of an embedded resource", `
type: object
properties:
  spec:
    type: object
    properties:
      template:
        type: object
        x-kubernetes-embedded-resource: true
        properties:
          metadata: {type: object, properties: {name: {type: string, x-kubernetes-mutability: Immutable}}}
`, []Problem{
			{root + ".properties[spec].properties[template].properties[metadata].properties[name].x-kubernetes-mutability", "Forbidden: must not be used inside metadata"},
		}},
		{"a field named metadata elsewhere is fine", `
type: object
properties:
  spec: {type: object, properties: {metadata: {type: string, x-kubernetes-mutability: Immutable}}}
`, nil},
		{"key mutability on an object with properties (example 6)", `
type: object
properties:
  spec: {type: object, x-kubernetes-key-mutability: Immutable, properties: {foo: {type: string}}}
`, []Problem{
			{root + ".properties[spec].x-kubernetes-key-mutability", "Forbidden: must not be used on objects with properties, only on arrays and on maps (objects with additionalProperties)"},
		}},
		{"key mutability on scalars and non-maps", `
type: object
properties:
  spec:
    type: object
    properties:
      s: {type: string, x-kubernetes-key-mutability: AddOnly}
      i: {x-kubernetes-int-or-string: true, x-kubernetes-key-mutability: AddOnly}
      f: {type: object, additionalProperties: false, x-kubernetes-key-mutability: AddOnly}
      p: {type: object, x-kubernetes-preserve-unknown-fields: true, x-kubernetes-key-mutability: AddOnly}
`, []Problem{
			{root + ".properties[spec].properties[f].x-kubernetes-key-mutability", "Forbidden: " + msgKeyOnOther},
			{root + ".properties[spec].properties[i].x-kubernetes-key-mutability", "Forbidden: " + msgKeyOnOther},
			{root + ".properties[spec].properties[p].x-kubernetes-key-mutability", "Forbidden: " + msgKeyOnOther},
			{root + ".properties[spec].properties[s].x-kubernetes-key-mutability", "Forbidden: " + msgKeyOnOther},
		}},
		{"AddOnly and RemoveOnly on arrays and maps", `
type: object
properties:
  spec:
    type: object
    properties:
      l: {type: array, x-kubernetes-mutability: AddOnly, items: {type: string}}
      m: {type: object, x-kubernetes-mutability: RemoveOnly, additionalProperties: {type: string}}
`, []Problem{
			{root + ".properties[spec].properties[l].x-kubernetes-mutability", `Unsupported value: "AddOnly": supported values: "Immutable"`},
			{root + ".properties[spec].properties[m].x-kubernetes-mutability", `Unsupported value: "RemoveOnly": supported values: "Immutable"`},
		}},
		{"unknown values", `
type: object
properties:
  spec:
    type: object
    properties:
      s: {type: string, x-kubernetes-mutability: Sometimes}
      e: {type: string, x-kubernetes-mutability: ""}
      c: {type: string, x-kubernetes-mutability: immutable}
      l: {type: array, x-kubernetes-key-mutability: Never, items: {type: string}}
      num: {type: string, x-kubernetes-mutability: 1}
      b: {type: array, x-kubernetes-key-mutability: true, items: {type: string}}
`, []Problem{
			{root + ".properties[spec].properties[b].x-kubernetes-key-mutability", "Invalid value: true: must be a string"},
			{root + ".properties[spec].properties[c].x-kubernetes-mutability", `Unsupported value: "immutable": supported values: "Immutable", "AddOnly", "RemoveOnly"`},
			{root + ".properties[spec].properties[e].x-kubernetes-mutability", `Unsupported value: "": supported values: "Immutable", "AddOnly", "RemoveOnly"`},
			{root + ".properties[spec].properties[l].x-kubernetes-key-mutability", `Unsupported value: "Never": supported values: "Immutable", "AddOnly", "RemoveOnly"`},
			{root + ".properties[spec].properties[num].x-kubernetes-mutability", "Invalid value: 1: must be a string"},
			{root + ".properties[spec].properties[s].x-kubernetes-mutability", `Unsupported value: "Sometimes": supported values: "Immutable", "AddOnly", "RemoveOnly"`},
		}},
		{"inside junctors", `
type: object
properties:
  spec:
    type: object
    properties:
      s:
        type: string
        anyOf:
        - x-kubernetes-mutability: Immutable
        not: {x-kubernetes-mutability: Immutable}
`, []Problem{
			{root + ".properties[spec].properties[s].anyOf[0].x-kubernetes-mutability", "Forbidden: " + msgJunctor},
			{root + ".properties[spec].properties[s].not.x-kubernetes-mutability", "Forbidden: " + msgJunctor},
		}},
		{"items and additionalProperties paths", `
type: object
properties:
  spec:
    type: object
    properties:
      l: {type: array, items: {type: string, x-kubernetes-key-mutability: Immutable}}
      m: {type: object, additionalProperties: {type: string, x-kubernetes-mutability: Maybe}}
`, []Problem{
			{root + ".properties[spec].properties[l].items.x-kubernetes-key-mutability", "Forbidden: " + msgKeyOnOther},
			{root + ".properties[spec].properties[m].additionalProperties.x-kubernetes-mutability", `Unsupported value: "Maybe": supported values: "Immutable", "AddOnly", "RemoveOnly"`},
		}},
		{"null markers count as absent", `{type: object, x-kubernetes-mutability: null}`, nil},
	}
	for _, tt := range tests {
		got := ValidatePlacement(mustSchema(t, tt.schema), root)
		if len(got) != len(tt.want) {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
			continue
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("%s: got %q, want %q", tt.name, got[i], tt.want[i])
			}
		}
	}
}

func TestValidatePlacementNoRootPath(t *testing.T) {
	got := ValidatePlacement(mustSchema(t, `{type: object, x-kubernetes-mutability: Immutable}`), "")
	if len(got) != 1 || got[0].Path != "x-kubernetes-mutability" {
		t.Errorf("got %v, want one problem at x-kubernetes-mutability", got)
	}
	if got := ValidatePlacement(nil, ""); got != nil {
		t.Errorf("nil schema: got %v, want none", got)
	}
}

const crdYAML = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
  - name: v1alpha1
    served: true
    storage: false
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, properties: {size: {type: string}}}
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          metadata:
            type: object
            properties:
              name: {type: string, x-kubernetes-mutability: Immutable}
          spec:
            type: object
            properties:
              size: {type: string, x-kubernetes-mutability: Immutable}
              tags:
                type: array
                x-kubernetes-list-type: set
                x-kubernetes-mutability: Sometimes
                items: {type: string}
`

func TestFromCRD(t *testing.T) {
	j, err := yaml.YAMLToJSON([]byte(crdYAML))
	if err != nil {
		t.Fatal(err)
	}
	s, err := fromCRD(j, "v1")
	if err != nil {
		t.Fatalf("fromCRD: %v", err)
	}
	size := s.Properties["spec"].Properties["size"]
	if size == nil || size.Mutability != Immutable || !size.HasMutability {
		t.Fatalf("got size %+v, want x-kubernetes-mutability Immutable", size)
	}
	if got := s.Properties["spec"].Properties["tags"]; got.ListType != "set" || got.Items.Type != "string" {
		t.Errorf("got tags %+v, want a set of strings", got)
	}
	if got := Compare(s, obj(t, `{spec: {size: S}}`), obj(t, `{spec: {size: M}}`)); len(got) != 1 || got[0].Path != "spec.size" {
		t.Errorf("Compare: got %s, want one violation at spec.size", violations(got))
	}
	path, err := versionSchemaPath(j, "v1")
	if got, want := path, "spec.versions[1].schema.openAPIV3Schema"; err != nil || got != want {
		t.Errorf("versionSchemaPath: got %q, %v, want %q", got, err, want)
	}
	// YAML is accepted too.
	if _, err := fromCRD([]byte(crdYAML), "v1alpha1"); err != nil {
		t.Errorf("fromCRD(YAML, v1alpha1): got %v, want no error", err)
	}
	for _, v := range []string{"v2", ""} {
		if _, err := fromCRD(j, v); err == nil {
			t.Errorf("fromCRD(%q): got no error, want one", v)
		}
	}
	if _, err := fromCRD([]byte("["), "v1"); err == nil {
		t.Errorf("fromCRD(garbage): got no error, want one")
	}
}

// TestServerDropsMarkers: the typed CRD API has no field for the markers,
// which is why they are read from the raw JSON.
func TestServerDropsMarkers(t *testing.T) {
	j, _ := yaml.YAMLToJSON([]byte(crdYAML))
	var crd apiextensionsv1.CustomResourceDefinition
	if err := json.Unmarshal(j, &crd); err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(crd)
	if strings.Contains(string(out), MutabilityExtension) {
		t.Errorf("got %s in the typed CRD, want it dropped", MutabilityExtension)
	}
}

func TestValidateCRD(t *testing.T) {
	got, err := validateCRD([]byte(crdYAML))
	if err != nil {
		t.Fatal(err)
	}
	want := []Problem{
		{"spec.versions[1].schema.openAPIV3Schema.properties[metadata].properties[name].x-kubernetes-mutability", "Forbidden: must not be used inside metadata"},
		{"spec.versions[1].schema.openAPIV3Schema.properties[spec].properties[tags].x-kubernetes-mutability", `Unsupported value: "Sometimes": supported values: "Immutable", "AddOnly", "RemoveOnly"`},
	}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("got %q, want %q", got[i], want[i])
		}
	}
	v1beta1 := `
apiVersion: apiextensions.k8s.io/v1beta1
kind: CustomResourceDefinition
spec:
  version: v1
  validation:
    openAPIV3Schema: {type: object, x-kubernetes-mutability: Immutable}
`
	got, err = validateCRD([]byte(v1beta1))
	if err != nil || len(got) != 1 || got[0].Path != "spec.validation.openAPIV3Schema.x-kubernetes-mutability" {
		t.Errorf("v1beta1: got %v, %v, want one problem at the root", got, err)
	}
	if _, err := fromCRD([]byte(v1beta1), "v1"); err != nil {
		t.Errorf("fromCRD(v1beta1): got %v, want no error", err)
	}
}

func TestParseSchemaErrors(t *testing.T) {
	for _, y := range []string{
		`{properties: []}`,
		`{properties: {a: 1}}`,
		`{items: [{type: string}]}`,
		`{additionalProperties: 1}`,
		`{type: 1}`,
		`{x-kubernetes-list-map-keys: a}`,
		`{x-kubernetes-preserve-unknown-fields: "yes"}`,
		`{allOf: {}}`,
		`{not: []}`,
	} {
		var raw map[string]any
		if err := yaml.Unmarshal([]byte(y), &raw); err != nil {
			t.Fatal(err)
		}
		if _, err := ParseSchema(raw); err == nil {
			t.Errorf("ParseSchema(%s): got no error, want one", y)
		}
	}
}
