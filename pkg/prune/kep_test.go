package prune

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/engine"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// keps are the 11 worked examples of the pruning KEP (seeds
// 000_0093ce7cf78999e8.txt, 2018): the schema, the input, the KEP's
// result, and, where today's server prunes differently, why.
var keps = []struct {
	name, schema, input, kep string
	// differs explains a difference between today's server and the KEP.
	differs string
	// note says what else today's server does with the example.
	note string
}{
	{"01-unspecified", `type: object`, `{"foo": 42, "json": {"bar": 43}}`, `{}`, "", ""},
	{"02-properties-top-level", `{type: object, properties: {foo: {type: object}}}`,
		`{"foo": {"abc": 42}, "json": {"bar": 43}}`, `{"foo": {}}`, "", ""},
	{"03-properties-multiple-levels", `{type: object, properties: {foo: {type: object, properties: {bar: {type: object}}}}}`,
		`{"foo": {"bar": {"abc": 42}, "def": 43}, "json": {"ghi": 44}}`, `{"foo": {"bar": {}}}`, "", ""},
	{"04-additionalProperties-schema", `{type: object, properties: {foo: {type: object, additionalProperties: {type: object}}}}`,
		`{"foo": {"abc": {"x": 42}, "def": {"y": 43}}, "json": {"ghi": 44}}`, `{"foo": {"abc": {}, "def": {}}}`, "", ""},
	{"05-additionalProperties-false", `{type: object, properties: {foo: {type: object, additionalProperties: false}}}`,
		`{"foo": {"abc": {"x": 42}, "def": {"y": 43}}, "json": {"ghi": 44}}`, `{"foo": {"abc": {}, "def": {}}}`,
		"", "the KEP's input is invalid all the same: additionalProperties: false keeps the keys (pruning stops at its level) and validation then rejects the object (foo.abc is a forbidden property)"},
	{"06-arbitrary-json", `{type: object, properties: {json: {x-kubernetes-preserve-unknown-fields: true, nullable: true}}}`,
		`{"foo": 42, "json": {"bar": 43}}`, `{"json": {"bar": 43}}`, "", ""},
	{"07-json-with-properties", `{type: object, properties: {json: {type: object, x-kubernetes-preserve-unknown-fields: true, nullable: true, properties: {bar: {type: object}}}}}`,
		`{"foo": 42, "json": {"bar": {"abc": 43}, "def": 44}}`, `{"json": {"bar": {"abc": 43}, "def": 44}}`,
		"today a property listed under a preserve-unknown-fields node is pruned with its own schema: bar is an object without properties, so json.bar.abc is removed (the KEP kept it)", ""},
	{"08-json-with-properties-lower", `{type: object, properties: {json: {type: object, x-kubernetes-preserve-unknown-fields: true, nullable: true, properties: {bar: {type: object, properties: {inner: {type: integer}}}}}}}`,
		`{"foo": 42, "json": {"bar": {"inner": 43, "abc": 44}, "def": 45}}`, `{"json": {"bar": {"inner": 43}, "def": 45}}`, "", ""},
	{"09-additionalProperties-within-json", `{type: object, properties: {json: {type: object, x-kubernetes-preserve-unknown-fields: true, nullable: true, additionalProperties: {type: object}}}}`,
		`{"foo": 42, "json": {"bar": {"inner": 43, "abc": 44}, "def": 45}}`, `{"json": {"bar": {"inner": 43, "abc": 44}, "def": 45}}`,
		"today pruning restarts under additionalProperties inside a preserve-unknown-fields node: bar is pruned with {type: object}, so its fields are removed (the KEP kept them)", ""},
	{"10-embedded-resource", `{type: object, properties: {object: {type: object, nullable: true, x-kubernetes-embedded-resource: true, x-kubernetes-preserve-unknown-fields: true}}}`,
		`{"foo": 42, "object": {"bar": 43, "abc": 44, "metadata": {"name": "example", "garbage": 45}}}`,
		`{"object": {"bar": 43, "abc": 44, "metadata": {"name": "example"}}}`, "", ""},
	{"11-implicit-meta", `type: object`,
		`{"apiVersion": "example.com/v1", "kind": "Foo", "metadata": {"name": "example", "garbage": 43}, "foo": 42}`,
		`{"apiVersion": "example.com/v1", "kind": "Foo", "metadata": {"name": "example"}}`, "", ""},
}

// kepVersion wraps a KEP schema as the root schema of a CRD and compiles it
// as the server does.
func kepVersion(t *testing.T, schemaYAML string) *engine.Version {
	t.Helper()
	var s any
	if err := sigsyaml.Unmarshal([]byte(schemaYAML), &s); err != nil {
		t.Fatal(err)
	}
	c := map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "foos.example.com"},
		"spec": map[string]any{
			"group": "example.com", "scope": "Namespaced",
			"names": map[string]any{"plural": "foos", "kind": "Foo"},
			"versions": []any{map[string]any{"name": "v1", "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": s}}},
		},
	}
	js, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	def := crd.Decode(js)
	if def.DecodeError != nil {
		t.Fatal(def.DecodeError)
	}
	cat := crd.NewCatalog(false)
	cat.Add(def, "kep", crd.Input)
	v, err := cat.Lookup(schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Foo"})
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	return v
}

func TestKEPExamples(t *testing.T) {
	for _, k := range keps {
		t.Run(k.name, func(t *testing.T) {
			v := kepVersion(t, k.schema)
			var in map[string]any
			if err := utiljson.Unmarshal([]byte(k.input), &in); err != nil {
				t.Fatal(err)
			}
			// The KEP shows the object without its implicit TypeMeta and
			// ObjectMeta; a request carries them.
			implicit := in["apiVersion"] == nil
			if implicit {
				in["apiVersion"], in["kind"] = "example.com/v1", "Foo"
				in["metadata"] = map[string]any{"name": "example"}
			}
			y, err := sigsyaml.Marshal(in)
			if err != nil {
				t.Fatal(err)
			}
			doc := source.Parse("input.yaml", y).Documents[0]
			obj := map[string]any{}
			_ = utiljson.Unmarshal(doc.JSON, &obj)
			dropped, err := v.Prune(obj, false)
			if err != nil {
				t.Fatal(err)
			}
			result := obj
			if implicit {
				result = map[string]any{}
				for key, val := range obj {
					if key != "apiVersion" && key != "kind" && key != "metadata" {
						result[key] = val
					}
				}
			}
			var kep any
			_ = json.Unmarshal([]byte(k.kep), &kep)
			same := equalJSON(result, kep)
			if same != (k.differs == "") {
				t.Errorf("today's server %s the KEP: got %s, KEP %s", map[bool]string{true: "agrees with", false: "differs from"}[same], mustJSON(result), k.kep)
			}
			out, err := Rewrite(source.Parse("input.yaml", y), y, []Doc{{Document: doc, Object: obj}})
			if err != nil {
				t.Fatalf("rewrite: %v", err)
			}
			golden := fmt.Sprintf("# KEP example %s\n# schema: %s\n# pruned: %s\n", k.name, k.schema, strings.Join(dropped, ", "))
			if k.differs != "" {
				golden += "# differs from the KEP: " + k.differs + "\n"
			}
			if k.note != "" {
				golden += "# note: " + k.note + "\n"
			}
			golden += "# input:\n" + prefix(string(y)) + "# as stored (the KEP showed " + k.kep + "):\n" + string(out)
			path := filepath.Join("testdata", "kep", k.name+".golden")
			if *update {
				if err := os.WriteFile(path, []byte(golden), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (go test ./pkg/prune -update)", err)
			}
			if string(want) != golden {
				t.Errorf("%s differs:\n got:\n%s\nwant:\n%s", path, golden, want)
			}
		})
	}
}

func prefix(s string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(s, "\n") {
		if l != "" {
			b.WriteString("#   " + l)
		}
	}
	return b.String()
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
