package engine

import (
	"context"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structurallisttype "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation/field"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/testutil"
)

// explainAll is what Explain did before it had facts: all three re-runs
// on every object with errors. Explain must answer exactly as looking an
// error up in these maps does.
func explainAll(v *Version, vd *Verdict) (schemaErrs, embedded, listType map[string]bool) {
	schemaErrs, embedded, listType = map[string]bool{}, map[string]bool{}, map[string]bool{}
	if vd.Object == nil || len(vd.Errors) == 0 {
		return
	}
	obj := vd.Object.UnstructuredContent()
	for _, e := range apiservervalidation.ValidateCustomResource(nil, obj, v.validator) {
		schemaErrs[e.Error()] = true
	}
	if v.Structural() != nil {
		for _, e := range validateEmbedded(obj, v.Structural()) {
			embedded[e.Error()] = true
		}
		for _, e := range structurallisttype.ValidateListSetsAndMaps(nil, v.Structural(), obj) {
			listType[e.Error()] = true
		}
	}
	return
}

// origin mirrors lint's classifyCR order on the full re-run's maps.
func origin(e *field.Error, schemaErrs, embedded, listType map[string]bool) string {
	k := e.Error()
	switch {
	case e.Field == "kind" || e.Field == "apiVersion":
		return "typemeta"
	case listType[k]:
		return "list-type"
	case embedded[k]:
		return "embedded"
	case schemaErrs[k]:
		return "schema"
	case strings.HasPrefix(e.Field, "metadata"):
		return "metadata"
	case strings.HasPrefix(e.Field, "."):
		return "scale"
	}
	return "cel"
}

// checkExplain compares each of Explain's answers for each of vd's errors
// with the full re-run's, and returns the errors' origins.
func checkExplain(t *testing.T, name string, v *Version, vd *Verdict) []string {
	t.Helper()
	x := v.Explain(vd)
	// Ask in reverse classification order first: each answer must be
	// exact whatever was asked before.
	type answer struct{ schema, embedded, listType bool }
	got := make([]answer, len(vd.Errors))
	for i, e := range vd.Errors {
		got[i].schema = x.Schema(e)
		got[i].embedded = x.Embedded(e)
		got[i].listType = x.ListType(e)
	}
	schemaErrs, embedded, listType := explainAll(v, vd)
	var origins []string
	for i, e := range vd.Errors {
		k := e.Error()
		want := answer{schemaErrs[k], embedded[k], listType[k]}
		if got[i] != want {
			t.Errorf("%s: %q: Explain answers %+v, the full re-run %+v", name, k, got[i], want)
		}
		origins = append(origins, origin(e, schemaErrs, embedded, listType))
	}
	return origins
}

const explainSchema = `
type: object
properties:
  spec:
    type: object
    properties:
      color: {type: string, enum: [red, green]}
      replicas: {type: integer, minimum: 0}
      tags: {type: array, x-kubernetes-list-type: set, items: {type: string}}
      ports:
        type: array
        x-kubernetes-list-type: map
        x-kubernetes-list-map-keys: [port]
        items: {type: object, required: [port], properties: {port: {type: integer}, name: {type: string}}}
      template: {type: object, x-kubernetes-embedded-resource: true, x-kubernetes-preserve-unknown-fields: true}
  status:
    type: object
    properties:
      replicas: {type: integer}
`

// explainSchemas are variants of explainSchema; the "odd" ones are
// schemas the server's CRD validation refuses, which compile serves all
// the same: Explain's facts must not rely on that validation.
var explainSchemas = []struct {
	name string
	edit string // YAML merged into the root schema
	cel  bool
}{
	{name: "plain"},
	{name: "cel", cel: true},
	{name: "trivial-metadata", edit: `properties: {metadata: {type: object, description: d, properties: {name: {type: string}, generateName: {type: string}}}}`},
	{name: "metadata-name-constrained", edit: `properties: {metadata: {type: object, properties: {name: {type: string, maxLength: 8}}}}`},
	{name: "metadata-name-constrained-cel", cel: true, edit: `properties: {metadata: {type: object, properties: {name: {type: string, maxLength: 8}}}}`},
	{name: "required-metadata", edit: `required: [metadata, spec]`},
	{name: "required-metadata-cel", cel: true, edit: `{required: [metadata, spec], properties: {metadata: {type: object}}}`},
	{name: "odd-required-dotted", edit: `required: [metadata.x]`},
	{name: "odd-dotted-key", edit: `properties: {metadata.x: {type: string, maxLength: 2}}`},
	{name: "odd-dotted-key-cel", cel: true, edit: `properties: {metadata.x: {type: string, maxLength: 2}}`},
	{name: "odd-root-embedded", edit: `{x-kubernetes-embedded-resource: true, x-kubernetes-preserve-unknown-fields: true}`},
	{name: "odd-allOf-metadata", edit: `allOf: [{properties: {metadata: {properties: {name: {maxLength: 3}}}}}]`},
	{name: "odd-dotted-key-embedded", edit: `properties: {metadata.e: {type: object, x-kubernetes-embedded-resource: true, x-kubernetes-preserve-unknown-fields: true}}`},
	// Root keys "..spec" and "." report at ".spec…", ".metadata" at
	// "metadata…".
	{name: "odd-dot-keys", edit: oddDotKeys},
	{name: "odd-dot-keys-cel", cel: true, edit: oddDotKeys},
	{name: "odd-dot-metadata", edit: `properties: {".metadata": {type: object, properties: {x: {type: string, maxLength: 1}}}}`},
	{name: "odd-root-additionalProperties", edit: `additionalProperties: {type: object, x-kubernetes-embedded-resource: true, x-kubernetes-preserve-unknown-fields: true}`},
	{name: "odd-metadata-list-type", edit: `properties: {metadata: {type: object, x-kubernetes-preserve-unknown-fields: true, properties: {finalizers: {type: array, x-kubernetes-list-type: set, items: {type: string}}}}}`},
}

const oddDotKeys = `properties:
  ".spec": {type: object, properties: {replicas: {type: integer, minimum: 5}}}
  "..spec": {type: object, properties: {replicas: {type: integer, minimum: 5}}}
  ".": {type: object, properties: {spec: {type: object, properties: {replicas: {type: integer, minimum: 5}}}}}
  "": {type: object, properties: {spec: {type: object, properties: {replicas: {type: integer, minimum: 5}}}}}
`

const explainCEL = `
properties:
  spec:
    x-kubernetes-validations:
    - {rule: "!has(self.replicas) || self.replicas < 100", message: too many}
    - {rule: "!has(self.color) || self.color != 'green'", message: not green}
x-kubernetes-validations:
- {rule: "self.metadata.name != 'forbidden'", fieldPath: .metadata.name, message: forbidden name}
- {rule: "!has(self.spec) || !has(self.spec.replicas) || self.spec.replicas != 13", message: unlucky}
`

// explainObjects each break something; {} is the metadata, spec and
// extra keys of a Widget.
var explainObjects = []struct{ name, yaml string }{
	{"valid", `{metadata: {name: w1}, spec: {color: red, replicas: 1}}`},
	{"meta-name-template", `{metadata: {name: "${CLUSTER}-x"}, spec: {color: red}}`},
	{"meta-name-long", `{metadata: {name: abcdefghijkl}}`},
	{"meta-name-forbidden", `{metadata: {name: forbidden}}`},
	{"meta-labels", `{metadata: {name: w1, labels: {"bad key!": x}}}`},
	{"meta-generateName-template", `{metadata: {generateName: "${X}-"}}`},
	{"meta-finalizers-duplicate", `{metadata: {name: w1, finalizers: [a.io/x, a.io/x]}}`},
	{"no-metadata", `{spec: {color: red}}`},
	{"enum", `{metadata: {name: w1}, spec: {color: purple}}`},
	{"minimum", `{metadata: {name: w1}, spec: {replicas: -1}}`},
	{"cel-only", `{metadata: {name: w1}, spec: {replicas: 200, color: green}}`},
	{"cel-root-and-spec", `{metadata: {name: w1}, spec: {replicas: 13, color: green}}`},
	{"set-duplicate", `{metadata: {name: w1}, spec: {tags: [a, a]}}`},
	{"map-duplicate", `{metadata: {name: w1}, spec: {ports: [{port: 1}, {port: 1}]}}`},
	{"map-missing-key-blocking", `{metadata: {name: w1}, spec: {ports: [{name: x}]}}`},
	{"embedded-no-apiVersion", `{metadata: {name: w1}, spec: {template: {kind: Pod}}}`},
	{"embedded-metadata", `{metadata: {name: w1}, spec: {template: {apiVersion: v1, kind: Pod, metadata: {name: "${X}"}}}}`},
	{"scale-not-integer", `{metadata: {name: w1}, spec: {replicas: three}}`},
	{"kind-mismatch", `{kind: Gadget, metadata: {name: w1}, spec: {color: purple}}`},
	{"dotted-key", `{metadata: {name: w1}, metadata.x: abc}`},
	// One key each: errors of two keys at one path are reported in map
	// order, differently from run to run.
	{"dot-key", `{metadata: {name: w1}, ".spec": {replicas: 1}}`},
	{"dot-dot-key", `{metadata: {name: w1}, "..spec": {replicas: 1}}`},
	{"dot-alone-key", `{metadata: {name: w1}, ".": {spec: {replicas: 1}}}`},
	{"empty-key", `{metadata: {name: w1}, "": {spec: {replicas: 1}}}`},
	{"dot-key-and-scale", `{metadata: {name: w1}, "..spec": {replicas: 1}, spec: {replicas: three}}`},
	{"dot-metadata-key", `{metadata: {name: w1}, ".metadata": {x: abc}}`},
	{"dotted-key-embedded", `{metadata: {name: w1}, metadata.e: {kind: Pod}}`},
	{"mixed", `{metadata: {name: "${X}", labels: {"bad key!": x}}, spec: {color: purple, replicas: 200, tags: [a, a], template: {kind: Pod}}}`},
	{"mixed-cel", `{metadata: {name: "${X}"}, spec: {replicas: 200, tags: [a, a]}}`},
}

func yamlObject(t testing.TB, y string) map[string]any {
	t.Helper()
	js, err := sigsyaml.YAMLToJSON([]byte(y))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := utiljson.Unmarshal(js, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// merge merges patch into base (maps recursively, everything else
// replaced).
func merge(base, patch map[string]any) {
	for k, pv := range patch {
		if pm, ok := pv.(map[string]any); ok {
			if bm, ok := base[k].(map[string]any); ok {
				merge(bm, pm)
				continue
			}
		}
		base[k] = pv
	}
}

func explainVersion(t *testing.T, edit string, withCEL bool) *Version {
	t.Helper()
	root := yamlObject(t, explainSchema)
	if edit != "" {
		merge(root, yamlObject(t, edit))
	}
	if withCEL {
		merge(root, yamlObject(t, explainCEL))
	}
	js, err := utiljson.Marshal(root)
	if err != nil {
		t.Fatal(err)
	}
	props := &apiextensionsv1.JSONSchemaProps{}
	if err := utiljson.Unmarshal(js, props); err != nil {
		t.Fatal(err)
	}
	c := testutil.WidgetCRD(apiextensionsv1.CustomResourceDefinitionVersion{Name: "v1", Served: true, Storage: true,
		Subresources: &apiextensionsv1.CustomResourceSubresources{Scale: &apiextensionsv1.CustomResourceSubresourceScale{
			SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.replicas"}}})
	c.Spec.Versions[0].Schema.OpenAPIV3Schema = props
	v, err := compile(c, "v1")
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestExplainTargeted checks Explain against the full re-run on objects
// that break each part of the validation, under schemas that do and do
// not let the facts settle the questions.
func TestExplainTargeted(t *testing.T) {
	seen := map[string]int{}
	errs := 0
	for _, s := range explainSchemas {
		v := explainVersion(t, s.edit, s.cel)
		for _, o := range explainObjects {
			obj := yamlObject(t, "{apiVersion: example.com/v1, kind: Widget}")
			merge(obj, yamlObject(t, o.yaml))
			vd := v.Create(obj, "ns")
			if vd.Panic != "" || vd.DecodeError != nil {
				t.Fatalf("%s/%s: %s %v", s.name, o.name, vd.Panic, vd.DecodeError)
			}
			name := s.name + "/" + o.name
			for _, og := range checkExplain(t, name, v, vd) {
				seen[og]++
			}
			errs += len(vd.Errors)
			if o.name == "valid" && !strings.HasPrefix(s.name, "odd-") && len(vd.Errors) > 0 {
				t.Errorf("%s: want no errors, got %v", name, vd.Errors)
			}
		}
	}
	// Create always leaves metadata (PrepareForCreate sets the
	// generation); the guard for a required metadata that is absent
	// needs the strategy's verdict on an object as it is.
	for _, s := range explainSchemas {
		v := explainVersion(t, s.edit, s.cel)
		u := &unstructured.Unstructured{Object: yamlObject(t, "{apiVersion: example.com/v1, kind: Widget, spec: {color: purple}}")}
		vd := &Verdict{Object: u, Errors: restValidateCreate(genericapirequest.WithNamespace(context.Background(), "ns"), u, v.strategy)}
		for _, og := range checkExplain(t, s.name+"/unprepared-without-metadata", v, vd) {
			seen[og]++
		}
		errs += len(vd.Errors)
		if _, ok := u.Object["metadata"]; ok {
			t.Fatalf("the strategy added metadata")
		}
	}
	for _, og := range []string{"typemeta", "list-type", "embedded", "schema", "metadata", "scale", "cel"} {
		if seen[og] == 0 {
			t.Errorf("no error of origin %s: the cases miss a part", og)
		}
	}
	t.Logf("%d schemas x %d objects: %d errors compared; origins %v", len(explainSchemas), len(explainObjects), errs, seen)
}

// TestExplainSkipsReruns checks the point of the facts: metadata errors
// under a schema that cannot constrain metadata, and schema errors
// without CEL, need no re-run of the schema validation.
func TestExplainSkipsReruns(t *testing.T) {
	for _, tc := range []struct {
		schema, edit string
		cel          bool
		object       string
		schemaRerun  bool
	}{
		{"plain", "", false, `{metadata: {name: "${X}", labels: {"bad key!": x}}}`, false},
		{"cel", "", true, `{metadata: {name: "${X}"}}`, false},
		{"trivial-metadata", `properties: {metadata: {type: object}}`, true, `{metadata: {name: "${X}"}}`, false},
		{"plain", "", false, `{metadata: {name: w1}, spec: {color: purple, tags: [a, a]}}`, false},
		// An enum error blocks CEL: the strategy did not run it.
		{"cel", "", true, `{metadata: {name: w1}, spec: {color: purple}}`, false},
		{"cel", "", true, `{metadata: {name: "${X}"}, spec: {color: purple, replicas: 200}}`, false},
		// A minimum error does not: CEL ran, and the schema must say
		// which errors are its own.
		{"cel", "", true, `{metadata: {name: w1}, spec: {replicas: -1}}`, true},
		// Scale errors start with "."; the schema cannot report such.
		{"plain", "", false, `{metadata: {name: w1}, spec: {replicas: three}}`, false},
		{"cel", "", true, `{metadata: {name: w1}, spec: {replicas: three}}`, false},
		{"metadata-name-constrained", `properties: {metadata: {type: object, properties: {name: {type: string, maxLength: 8}}}}`, false, `{metadata: {name: "${X}"}}`, true},
	} {
		v := explainVersion(t, tc.edit, tc.cel)
		obj := yamlObject(t, "{apiVersion: example.com/v1, kind: Widget}")
		merge(obj, yamlObject(t, tc.object))
		vd := v.Create(obj, "ns")
		if len(vd.Errors) == 0 {
			t.Fatalf("%s %s: no errors", tc.schema, tc.object)
		}
		blocked := false
		for _, e := range vd.Errors {
			blocked = blocked || isBlocked(e)
		}
		if strings.Contains(tc.object, "purple") && tc.cel && !blocked {
			t.Errorf("%s %s: no error is the strategy's blocked-CEL error: has its text changed? %v", tc.schema, tc.object, vd.Errors)
		}
		x := v.Explain(vd)
		for _, e := range vd.Errors {
			// What lint's classifyCR asks, in its order.
			_ = e.Field == "kind" || e.Field == "apiVersion" || x.ListType(e) || x.Embedded(e) || x.Schema(e)
		}
		if (x.schema != nil) != tc.schemaRerun {
			t.Errorf("%s %s: schema re-run %v, want %v", tc.schema, tc.object, x.schema != nil, tc.schemaRerun)
		}
		onlyMeta := true
		for _, e := range vd.Errors {
			onlyMeta = onlyMeta && isMetadata(e)
		}
		if onlyMeta && (x.listType != nil || x.embedded != nil) {
			t.Errorf("%s %s: metadata errors re-ran list types or embedded resources", tc.schema, tc.object)
		}
	}
}

// TestExplainFactsCorpus checks the CEL fact against the server's own
// answer (cel.NewValidator is nil without rules) for every version of
// every corpus CRD, and reports how often each fact holds.
func TestExplainFactsCorpus(t *testing.T) {
	counts := map[string]int{}
	versions := 0
	for _, p := range testutil.Files(t, "crds") {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, doc := range strings.Split(string(data), "\n---") {
			c := &apiextensionsv1.CustomResourceDefinition{}
			if err := sigsyaml.Unmarshal([]byte(doc), c); err != nil || c.Kind != "CustomResourceDefinition" {
				continue
			}
			for _, sv := range c.Spec.Versions {
				v, err := compile(c, sv.Name)
				if err != nil {
					continue
				}
				versions++
				if got, want := v.facts.cel, v.celValidator() != nil; got != want {
					t.Errorf("%s %s: cel fact %v, the server has a CEL validator: %v", c.Name, sv.Name, got, want)
				}
				f := v.facts
				if f.metaSchema {
					t.Logf("%s %s: the schema may report metadata errors", c.Name, sv.Name)
				}
				for name, b := range map[string]bool{"cel": f.cel, "list-type": f.listType, "embedded": f.embedded,
					"metadata-schema": f.metaSchema, "metadata-list-type": f.metaListType, "metadata-embedded": f.metaEmbedded,
					"scale": len(f.scaleFields) > 0} {
					if b {
						counts[name]++
					}
				}
			}
		}
	}
	if versions == 0 {
		t.Fatal("no corpus CRD versions compiled")
	}
	var s []string
	for k, n := range counts {
		s = append(s, k+"="+strconv.Itoa(n))
	}
	sort.Strings(s)
	t.Logf("%d corpus CRD versions; facts that hold: %s", versions, strings.Join(s, " "))
}
