package lint

import (
	"encoding/json"
	"os"
	"strconv"
	"testing"

	sigsyaml "sigs.k8s.io/yaml"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// obj is a decoded manifest the mutants edit.
type obj = map[string]any

const (
	root  = "spec.versions[0].schema.openAPIV3Schema"
	sp    = root + ".properties.spec"
	props = sp + ".properties"
)

// getPath walks a dotted path with [i] indexes; nil when absent.
func getPath(o any, path string) any {
	for _, s := range source.ParsePath(path) {
		switch n := o.(type) {
		case map[string]any:
			o = n[s.Name]
		case []any:
			i, err := strconv.Atoi(s.Name)
			if err != nil || i >= len(n) {
				return nil
			}
			o = n[i]
		default:
			return nil
		}
	}
	return o
}

// setPath sets (or, with del, deletes) the value at path, creating maps.
func setPath(o obj, path string, v any, del bool) {
	segs := source.ParsePath(path)
	var cur any = o
	for i, s := range segs {
		last := i == len(segs)-1
		switch n := cur.(type) {
		case map[string]any:
			if last {
				if del {
					delete(n, s.Name)
				} else {
					n[s.Name] = v
				}
				return
			}
			if n[s.Name] == nil {
				n[s.Name] = map[string]any{}
			}
			cur = n[s.Name]
		case []any:
			j, _ := strconv.Atoi(s.Name)
			if last {
				n[j] = v
				return
			}
			cur = n[j]
		}
	}
}

func set(path string, v any) func(obj) { return func(o obj) { setPath(o, path, v, false) } }
func del(path string) func(obj)        { return func(o obj) { setPath(o, path, nil, true) } }
func all(fs ...func(obj)) func(obj) {
	return func(o obj) {
		for _, f := range fs {
			f(o)
		}
	}
}

func yamlValue(s string) any {
	var v any
	if err := sigsyaml.Unmarshal([]byte(s), &v); err != nil {
		panic(err)
	}
	return v
}

// mutant is one edit of the base CRD, named after what it breaks.
type mutant struct {
	name string
	edit func(obj)
}

// mutants cover every structural-schema violation of the structural
// schema design, every selectableFields rule of the field-selector design,
// and the other API rules of CRD validation.
var mutants = []mutant{
	{"valid", func(obj) {}},
	// Structural schema: types.
	{"missing-type-property", del(props + ".color.type")},
	{"missing-type-items", del(props + ".tags.items.type")},
	{"missing-type-root", del(root + ".type")},
	{"missing-type-additionalProperties", del(props + ".labels.additionalProperties.type")},
	{"root-type-array", set(root+".type", "array")},
	{"type-null", set(props+".color.type", "null")},
	{"type-unsupported", set(props+".color.type", "strin")},
	{"array-without-items", del(props + ".tags.items")},
	{"items-array-form", set(props+".tags.items", yamlValue("[{type: string}]"))},
	// Structural schema: forbidden keywords.
	{"ref", set(props+".color.$ref", "#/definitions/x")},
	{"definitions", set(root+".definitions", yamlValue("{x: {type: string}}"))},
	{"pattern-properties", set(props+".labels.patternProperties", yamlValue("{'^a': {type: string}}"))},
	{"dependencies", set(sp+".dependencies", yamlValue("{color: [replicas]}"))},
	{"additional-items", set(props+".tags.additionalItems", false)},
	{"id", set(props+".color.id", "x")},
	{"schema-keyword", set(root+".$schema", "http://json-schema.org/draft-04/schema#")},
	{"unique-items", set(props+".tags.uniqueItems", true)},
	{"properties-and-additionalProperties-false", set(sp+".additionalProperties", false)},
	{"properties-and-additionalProperties-schema", set(sp+".additionalProperties", yamlValue("{type: string}"))},
	{"additionalProperties-at-root", all(del(root+".properties"), set(root+".additionalProperties", yamlValue("{type: string}")))},
	{"preserve-unknown-false", set(sp+".x-kubernetes-preserve-unknown-fields", false)},
	{"nullable-root", set(root+".nullable", true)},
	// Structural schema: value validation (junctors).
	{"type-in-anyOf", set(sp+".anyOf", yamlValue("[{type: object}]"))},
	{"additionalProperties-in-allOf", set(sp+".allOf", yamlValue("[{additionalProperties: {type: string}}]"))},
	{"description-in-oneOf", set(props+".color.oneOf", yamlValue("[{description: x}]"))},
	{"default-in-not", set(props+".color.not", yamlValue("{default: blue}"))},
	{"nullable-in-anyOf", set(props+".color.anyOf", yamlValue("[{nullable: true}]"))},
	{"preserve-in-allOf", set(sp+".allOf", yamlValue("[{x-kubernetes-preserve-unknown-fields: true}]"))},
	{"embedded-in-oneOf", set(sp+".oneOf", yamlValue("[{x-kubernetes-embedded-resource: true}]"))},
	{"list-type-in-anyOf", set(props+".tags.anyOf", yamlValue("[{x-kubernetes-list-type: atomic}]"))},
	{"validations-in-allOf", set(sp+".allOf", yamlValue("[{x-kubernetes-validations: [{rule: 'true'}]}]"))},
	{"metadata-in-junctor", set(sp+".anyOf", yamlValue("[{properties: {metadata: {}}}]"))},
	{"not-field-missing-from-core", set(root+".not", yamlValue("{properties: {ghost: {}}}"))},
	{"oneOf-field-missing-from-core", set(root+".oneOf", yamlValue("[{properties: {ghost: {}}}, {properties: {spec: {}}}]"))},
	{"anyOf-items-missing-from-core", set(root+".anyOf", yamlValue("[{properties: {status: {properties: {ghost: {}}}}}]"))},
	{"nested-junctor-field-missing-ok", set(sp+".oneOf", yamlValue("[{properties: {ghost: {}}}]"))},
	{"int-or-string-anyOf-ok", set(props+".port2", yamlValue("{x-kubernetes-int-or-string: true, anyOf: [{type: integer}, {type: string}]}"))},
	{"int-or-string-anyOf-wrong-order", set(props+".port2", yamlValue("{x-kubernetes-int-or-string: true, anyOf: [{type: string}, {type: integer}]}"))},
	// Structural schema: metadata.
	{"metadata-labels", set(root+".properties.metadata", yamlValue("{type: object, properties: {labels: {type: object}}}"))},
	{"metadata-description", set(root+".properties.metadata", yamlValue("{type: object, description: x}"))},
	{"metadata-name-ok", set(root+".properties.metadata", yamlValue("{type: object, properties: {name: {type: string, maxLength: 20}, generateName: {type: string}}}"))},
	{"metadata-default", set(root+".properties.metadata", yamlValue("{type: object, properties: {name: {type: string, default: x}}}"))},
	{"metadata-not-object", set(root+".properties.metadata", yamlValue("{type: string}"))},
	{"kind-not-string", set(root+".properties.kind", yamlValue("{type: integer}"))},
	// Structural schema: list-map keys and list/map types.
	{"list-map-without-keys", del(props + ".ports.x-kubernetes-list-map-keys")},
	{"list-map-keys-on-set", set(props+".tags.x-kubernetes-list-map-keys", yamlValue("[name]"))},
	{"list-map-key-not-required", set(props+".ports.items.required", yamlValue("[]"))},
	{"list-map-key-nullable", set(props+".ports.items.properties.port.nullable", true)},
	{"list-map-key-missing-field", set(props+".ports.x-kubernetes-list-map-keys", yamlValue("[ghost]"))},
	{"list-map-key-not-scalar", all(set(props+".ports.items.properties.port", yamlValue("{type: object, properties: {a: {type: string}}}")))},
	{"list-map-items-nullable", set(props+".ports.items.nullable", true)},
	{"list-type-on-object", set(props+".labels.x-kubernetes-list-type", "set")},
	{"list-type-unsupported", set(props+".tags.x-kubernetes-list-type", "bag")},
	{"map-type-on-array", set(props+".tags.x-kubernetes-map-type", "atomic")},
	{"map-type-unsupported", set(props+".labels.x-kubernetes-map-type", "loose")},
	{"set-of-objects", all(set(props+".ports.x-kubernetes-list-type", "set"), del(props+".ports.x-kubernetes-list-map-keys"))},
	{"set-of-atomic-objects-warns", all(set(props+".ports.x-kubernetes-list-type", "set"), del(props+".ports.x-kubernetes-list-map-keys"), set(props+".ports.items.x-kubernetes-map-type", "atomic"))},
	// API rules beyond structurality.
	{"pattern-invalid", set(props+".color.pattern", "([")},
	{"embedded-without-properties", del(props + ".template.x-kubernetes-preserve-unknown-fields")},
	{"embedded-not-object", set(props+".template.type", "string")},
	{"int-or-string-and-preserve", set(props+".port2", yamlValue("{x-kubernetes-int-or-string: true, x-kubernetes-preserve-unknown-fields: true}"))},
	{"format-unrecognized-warns", set(props+".color.format", "colour")},
	// Defaults.
	{"default-wrong-type", set(props+".replicas.default", "three")},
	{"default-not-pruned", set(sp+".default", yamlValue("{color: red, ghost: 1}"))},
	{"default-below-minimum", all(set(props+".replicas.minimum", 5), set(props+".replicas.default", 1))},
	{"default-fails-cel", set(sp+".default", yamlValue("{replicas: -1}"))},
	// CEL.
	{"cel-compile-error", set(sp+".x-kubernetes-validations[0].rule", "self.replicas >")},
	{"cel-undefined-field", set(sp+".x-kubernetes-validations[0].rule", "self.nope == 1")},
	{"cel-not-bool", set(sp+".x-kubernetes-validations[0].rule", "self.replicas")},
	{"cel-blank-rule", set(sp+".x-kubernetes-validations[0].rule", " ")},
	{"cel-message-newline", set(sp+".x-kubernetes-validations[0].message", "a\nb")},
	{"cel-bad-reason", set(sp+".x-kubernetes-validations[0].reason", "Bogus")},
	{"cel-message-expression-error", set(sp+".x-kubernetes-validations[0].messageExpression", "self.replicas")},
	{"cel-bad-field-path", set(sp+".x-kubernetes-validations[0].fieldPath", ".ghost")},
	{"cel-oldSelf-in-set", set(props+".tags.items.x-kubernetes-validations", yamlValue("[{rule: 'self == oldSelf'}]"))},
	{"cel-optionalOldSelf-without-oldSelf", set(sp+".x-kubernetes-validations[0].optionalOldSelf", true)},
	{"cel-cost-exceeded", all(del(props+".tags.maxItems"), del(props+".tags.items.maxLength"),
		set(sp+".x-kubernetes-validations[0].rule", "self.tags.all(x, self.tags.all(y, x.matches(y)))"))},
	{"cel-cost-high-warns", set(sp+".x-kubernetes-validations[0].rule", "self.tags.all(x, self.tags.all(y, x == y || x.startsWith(y)))")},
	// selectableFields.
	{"selectable-too-many", set("spec.versions[0].selectableFields", yamlValue("[{jsonPath: .spec.color}, {jsonPath: .spec.replicas}, {jsonPath: .spec.enabled}, {jsonPath: .spec.f1}, {jsonPath: .spec.f2}, {jsonPath: .spec.f3}, {jsonPath: .spec.f4}, {jsonPath: .spec.f5}, {jsonPath: .spec.f6}]"))},
	{"selectable-array", set("spec.versions[0].selectableFields", yamlValue("[{jsonPath: .spec.tags}]"))},
	{"selectable-array-notation", set("spec.versions[0].selectableFields", yamlValue("[{jsonPath: '.spec.ports[0].port'}]"))},
	{"selectable-map", set("spec.versions[0].selectableFields", yamlValue("[{jsonPath: .spec.labels}]"))},
	{"selectable-map-key-ok", set("spec.versions[0].selectableFields", yamlValue("[{jsonPath: .spec.labels.foo}]"))},
	{"selectable-metadata-undeclared", set("spec.versions[0].selectableFields", yamlValue("[{jsonPath: .metadata.name}]"))},
	{"selectable-metadata-declared", all(set(root+".properties.metadata", yamlValue("{type: object, properties: {name: {type: string}}}")),
		set("spec.versions[0].selectableFields", yamlValue("[{jsonPath: .metadata.name}]")))},
	{"selectable-number", set("spec.versions[0].selectableFields", yamlValue("[{jsonPath: .spec.ratio}]"))},
	{"selectable-object", set("spec.versions[0].selectableFields", yamlValue("[{jsonPath: .spec.template}]"))},
	{"selectable-duplicate", set("spec.versions[0].selectableFields", yamlValue("[{jsonPath: .spec.color}, {jsonPath: .spec.color}]"))},
	{"selectable-not-in-schema", set("spec.versions[0].selectableFields", yamlValue("[{jsonPath: .spec.ghost}]"))},
	{"selectable-empty", set("spec.versions[0].selectableFields", yamlValue("[{jsonPath: ''}]"))},
	{"selectable-no-dot", set("spec.versions[0].selectableFields", yamlValue("[{jsonPath: spec.color}]"))},
	{"selectable-int-bool-ok", set("spec.versions[0].selectableFields", yamlValue("[{jsonPath: .spec.replicas}, {jsonPath: .spec.enabled}]"))},
	// Names, group, scope, metadata.
	{"name-mismatch", set("metadata.name", "gadgets.example.com")},
	{"group-no-dot", all(set("spec.group", "example"), set("metadata.name", "widgets.example"))},
	{"group-missing", del("spec.group")},
	{"scope-unsupported", set("spec.scope", "Global")},
	{"kind-missing", del("spec.names.kind")},
	{"plural-uppercase", all(set("spec.names.plural", "Widgets"), set("metadata.name", "Widgets.example.com"))},
	{"listKind-equals-kind", set("spec.names.listKind", "Widget")},
	{"shortName-invalid", set("spec.names.shortNames", yamlValue("[W_D]"))},
	{"api-approval-missing", all(set("spec.group", "example.k8s.io"), set("metadata.name", "widgets.example.k8s.io"))},
	{"preserveUnknownFields-true", set("spec.preserveUnknownFields", true)},
	// Versions.
	{"no-storage-version", set("spec.versions[0].storage", false)},
	{"version-name-invalid", set("spec.versions[0].name", "V1")},
	{"deprecationWarning-not-deprecated", set("spec.versions[0].deprecationWarning", "old")},
	{"schema-missing", del("spec.versions[0].schema")},
	{"deprecated-no-warning-warns", set("spec.versions[0].deprecated", true)},
	// Subresources and printer columns.
	{"scale-spec-path-not-spec", set("spec.versions[0].subresources.scale.specReplicasPath", ".status.replicas")},
	{"scale-path-no-dot", set("spec.versions[0].subresources.scale.statusReplicasPath", "status.replicas")},
	{"scale-label-selector-path", set("spec.versions[0].subresources.scale.labelSelectorPath", ".metadata.labels")},
	{"scale-path-missing-warns", set("spec.versions[0].subresources.scale.specReplicasPath", ".spec.count")},
	{"status-root-anyOf", set(root+".anyOf", yamlValue("[{required: [spec]}]"))},
	{"column-type-invalid", set("spec.versions[0].additionalPrinterColumns[0].type", "color")},
	{"column-path-no-dot", set("spec.versions[0].additionalPrinterColumns[0].jsonPath", "spec.color")},
	{"column-format-invalid", set("spec.versions[0].additionalPrinterColumns[0].format", "rgb")},
	{"column-name-missing", del("spec.versions[0].additionalPrinterColumns[0].name")},
	{"column-path-missing-warns", set("spec.versions[0].additionalPrinterColumns[0].jsonPath", ".spec.colour")},
	// Conversion.
	{"conversion-webhook-no-config", set("spec.conversion", yamlValue("{strategy: Webhook}"))},
	{"conversion-webhook-http", set("spec.conversion", yamlValue("{strategy: Webhook, webhook: {conversionReviewVersions: [v1], clientConfig: {url: 'http://x.example.com/convert'}}}"))},
	{"conversion-review-versions-unknown", set("spec.conversion", yamlValue("{strategy: Webhook, webhook: {conversionReviewVersions: [v3], clientConfig: {service: {name: conv, namespace: default}}}}"))},
	{"conversion-strategy-unsupported", set("spec.conversion", yamlValue("{strategy: Magic}"))},
	// Decoding and unknown fields.
	{"decode-served-string", set("spec.versions[0].served", "yes")},
	{"unknown-field-warns", set(props+".color.x-kubernetes-mutability", "Immutable")},
	{"empty-object-warns", set(props+".extra", yamlValue("{type: object}"))},
	{"no-pruning-warns", set(root+".x-kubernetes-preserve-unknown-fields", true)},
}

// multiVersion turns the base into a CRD with two versions. With same, both
// carry the mutated schema and the server hoists it to spec.validation;
// otherwise the second version has the original schema.
func multiVersion(m mutant, same bool, base obj) obj {
	o := deepCopy(base)
	orig := deepCopy(getPath(o, "spec.versions[0]").(map[string]any))
	m.edit(o)
	v0 := getPath(o, "spec.versions[0]").(map[string]any)
	var v1 map[string]any
	if same {
		v1 = deepCopy(v0)
	} else {
		v1 = orig
		// Make the schemas differ even when the mutant did not touch them.
		setPath(v1, "schema.openAPIV3Schema.properties.spec.properties.v2only", map[string]any{"type": "string"}, false)
	}
	v1["name"] = "v2"
	v1["storage"] = false
	o["spec"].(map[string]any)["versions"] = []any{v0, v1}
	return o
}

func deepCopy[T any](v T) T {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	var out T
	if err := json.Unmarshal(b, &out); err != nil {
		panic(err)
	}
	return out
}

func loadBase(t testing.TB) obj {
	t.Helper()
	b, err := os.ReadFile("testdata/base-crd.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var o obj
	if err := sigsyaml.Unmarshal(b, &o); err != nil {
		t.Fatal(err)
	}
	return o
}

func toYAML(t testing.TB, o obj) []byte {
	t.Helper()
	b, err := sigsyaml.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
