package immutable

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/engine"
)

func decodeV1(t testing.TB, js []byte) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	d := crd.Decode(js)
	if d.DecodeError != nil || len(d.Unknown) > 0 {
		t.Fatalf("decoding the translated CRD (strict): %v %v\n%s", d.DecodeError, d.Unknown, js)
	}
	return d.Object()
}

// serverValidateCRD returns the server's errors for a create of the CRD.
func serverValidateCRD(t testing.TB, js []byte) []string {
	t.Helper()
	decodeV1(t, js)
	var out []string
	for _, e := range crd.Decode(js).Verdict(nil).Errors {
		out = append(out, e.Error())
	}
	return out
}

// widgetCRD wraps the schema of the Widget's spec (YAML) in a v1 CRD of
// group example.com, kind Widget.
func widgetCRD(t testing.TB, specSchema string) []byte {
	t.Helper()
	var spec map[string]any
	if err := yaml.Unmarshal([]byte(specSchema), &spec); err != nil {
		t.Fatalf("schema YAML: %v\n%s", err, specSchema)
	}
	c := map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1",
		"kind":       "CustomResourceDefinition",
		"metadata":   map[string]any{"name": "widgets.example.com"},
		"spec": map[string]any{
			"group": "example.com",
			"names": map[string]any{"kind": "Widget", "listKind": "WidgetList", "plural": "widgets", "singular": "widget"},
			"scope": "Namespaced",
			"versions": []any{map[string]any{
				"name": "v1", "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": map[string]any{
					"type":       "object",
					"properties": map[string]any{"spec": spec},
				}},
			}},
		},
	}
	js, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	return js
}

// widget builds a Widget with the given spec (YAML; "" for none).
func widget(t testing.TB, spec string) map[string]any {
	t.Helper()
	o := map[string]any{"apiVersion": "example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "w", "namespace": "ns"}}
	if spec != "" {
		o["spec"] = obj(t, spec)
	}
	return o
}

// differ is a translated CRD ready for comparisons.
type differ struct {
	schema *Schema // the original root schema, with markers
	v      *engine.Version
	out    []byte
}

func newDiffer(t testing.TB, crdJSON []byte) (*differ, error) {
	t.Helper()
	out, err := ToCEL(crdJSON)
	if err != nil {
		return nil, err
	}
	if strings.Contains(string(out), `"x-kubernetes-mutability"`) || strings.Contains(string(out), `"x-kubernetes-key-mutability"`) {
		t.Fatalf("markers left in the output:\n%s", out)
	}
	if errs := serverValidateCRD(t, out); len(errs) > 0 {
		t.Fatalf("the server rejects the translated CRD: %v\n%s", errs, out)
	}
	s, err := fromCRD(crdJSON, "v1")
	if err != nil {
		t.Fatal(err)
	}
	cat := crd.NewCatalog(false)
	cat.Add(crd.FromV1(decodeV1(t, out)), "tocel", crd.Input)
	v, err := cat.Lookup(schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"})
	if err != nil {
		t.Fatal(err)
	}
	return &differ{schema: s, v: v, out: out}, nil
}

func celDeepCopy(v any) any {
	switch t := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(t))
		for k, e := range t {
			m[k] = celDeepCopy(e)
		}
		return m
	case []any:
		l := make([]any, len(t))
		for i, e := range t {
			l[i] = celDeepCopy(e)
		}
		return l
	}
	return v
}

// check runs one update through the server and through Compare (on the
// objects as the server stores them) and reports whether they agree.
func (d *differ) check(t testing.TB, old, new map[string]any) (agree bool, detail string) {
	t.Helper()
	po, pn := celDeepCopy(old).(map[string]any), celDeepCopy(new).(map[string]any)
	if _, err := d.v.Prune(po, true); err != nil {
		t.Fatalf("prune old: %v", err)
	}
	if _, err := d.v.Prune(pn, true); err != nil {
		t.Fatalf("prune new: %v", err)
	}
	vs := Compare(d.schema, po, pn)
	vd := d.v.Update(celDeepCopy(old).(map[string]any), celDeepCopy(new).(map[string]any), "ns")
	if vd.DecodeError != nil || vd.Panic != "" {
		t.Fatalf("server update: decode %v, panic %s", vd.DecodeError, vd.Panic)
	}
	var errs []string
	for _, e := range vd.Errors {
		errs = append(errs, e.Error())
	}
	return (len(vs) > 0) == (len(errs) > 0), fmt.Sprintf("Compare: %s; server: %q", violations(vs), errs)
}

type celCase struct {
	name   string
	schema string // the Widget's spec schema; $M, $T replaced
	trans  []transition
	refuse string // non-empty: ToCEL must refuse, the error containing this
	// costMay: the schema is unbounded; ToCEL must either translate it
	// exactly or refuse it for the cost budget, naming a bound to add.
	costMay bool
}

// bounded adds maxItems, maxProperties and maxLength (8) where a schema
// (YAML) has none, so that the rules fit the server's cost budget.
func bounded(t testing.TB, y string) string {
	var raw map[string]any
	if err := yaml.Unmarshal([]byte(y), &raw); err != nil {
		t.Fatal(err)
	}
	var rec func(m map[string]any)
	rec = func(m map[string]any) {
		if m == nil {
			return
		}
		set := func(k string) {
			if _, ok := m[k]; !ok {
				m[k] = 8
			}
		}
		switch {
		case isArray(m):
			set("maxItems")
		case isMap(m):
			set("maxProperties")
		case str(m, "type") == "string":
			set("maxLength")
		}
		props, _ := m["properties"].(map[string]any)
		for _, p := range props {
			pm, _ := p.(map[string]any)
			rec(pm)
		}
		it, _ := m["items"].(map[string]any)
		rec(it)
		ap, _ := m["additionalProperties"].(map[string]any)
		rec(ap)
	}
	rec(raw)
	out, err := yaml.Marshal(raw)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// celCases are the KEP examples (all types and marker values) and more.
func celCases(t testing.TB) []celCase {
	var cs []celCase
	for _, ex := range kepExamples {
		types := ex.types
		if len(types) == 0 {
			types = []string{""}
		}
		values := ex.values
		if len(values) == 0 {
			values = all
		}
		for _, typ := range types {
			for _, m := range values {
				line := ""
				if typ != "" {
					line = ex.typeKey + ": " + typ
				}
				y := strings.NewReplacer("$M", m, "$T", line).Replace(ex.schema)
				cs = append(cs, celCase{
					name:   fmt.Sprintf("KEP %s/%q/%s/bounded", ex.name, typ, m),
					schema: bounded(t, y),
					trans:  ex.trans,
				}, celCase{
					name:    fmt.Sprintf("KEP %s/%q/%s/as in the KEP", ex.name, typ, m),
					schema:  y,
					trans:   ex.trans,
					costMay: true,
				})
			}
		}
	}
	for _, m := range all {
		r := strings.NewReplacer("$M", m)
		cs = append(cs, celCase{
			name: "nested property under spec objects/" + m,
			schema: bounded(t, r.Replace(`
type: object
properties:
  outer:
    type: object
    properties:
      f: {type: string, x-kubernetes-mutability: $M}
      g: {type: string}
`)),
			trans: cat(
				both(`{}`, `{outer: {f: a}}`, all, all),
				both(`{outer: {}}`, `{outer: {f: a}}`, nil, nil),
				both(`{outer: {f: a}}`, `{outer: {f: b}}`, nil, nil),
				both(`{outer: {f: a}}`, `{outer: {f: a, g: x}}`, nil, nil),
			),
		}, celCase{
			name: "property of items of an atomic list (lifted)/" + m,
			schema: bounded(t, r.Replace(`
type: object
properties:
  l:
    type: array
    items:
      type: object
      properties:
        f: {type: string, x-kubernetes-mutability: $M}
        g: {type: string}
`)),
			trans: cat(
				both(`{l: [{f: a}]}`, `{l: [{f: a, g: x}, {f: b}]}`, nil, nil),
				both(`{l: [{f: a}]}`, `{l: [{f: b}]}`, nil, nil),
				both(`{l: [{g: a}]}`, `{l: [{f: b, g: a}]}`, nil, nil),
				both(`{l: [{g: a}]}`, `{l: [{g: a}, {f: b}]}`, nil, nil),
				both(`{}`, `{l: [{f: b}]}`, nil, nil),
			),
		}, celCase{
			name: "property of map values and list-map items/" + m,
			schema: bounded(t, r.Replace(`
type: object
properties:
  m:
    type: object
    additionalProperties:
      type: object
      properties:
        f: {type: string, x-kubernetes-mutability: $M}
  lm:
    type: array
    x-kubernetes-list-type: map
    x-kubernetes-list-map-keys: [k]
    items:
      type: object
      required: [k]
      properties:
        k: {type: string}
        f: {type: string, x-kubernetes-mutability: $M}
`)),
			trans: cat(
				both(`{m: {a: {f: x}}}`, `{m: {a: {f: q}}}`, nil, nil),
				both(`{m: {a: {}}}`, `{m: {a: {f: q}}}`, nil, nil),
				both(`{m: {a: {f: x}}}`, `{m: {b: {f: q}}}`, nil, nil),
				both(`{lm: [{k: a, f: x}]}`, `{lm: [{k: a, f: q}]}`, nil, nil),
				both(`{lm: [{k: a}]}`, `{lm: [{k: a, f: q}]}`, nil, nil),
				both(`{lm: [{k: a, f: x}, {k: b}]}`, `{lm: [{k: b}, {k: a, f: x}]}`, nil, nil),
			),
		}, celCase{
			name: "key mutability nested in list-map items and atomic list items/" + m,
			schema: bounded(t, r.Replace(`
type: object
properties:
  lm:
    type: array
    x-kubernetes-list-type: map
    x-kubernetes-list-map-keys: [k]
    maxItems: 10
    items:
      type: object
      required: [k]
      properties:
        k: {type: string, maxLength: 10}
        tags:
          type: array
          maxItems: 10
          x-kubernetes-list-type: set
          x-kubernetes-key-mutability: $M
          items: {type: string, maxLength: 10}
  al:
    type: array
    maxItems: 10
    items:
      type: object
      properties:
        labels:
          type: object
          maxProperties: 10
          x-kubernetes-key-mutability: $M
          additionalProperties: {type: string, maxLength: 10}
`)),
			trans: cat(
				both(`{lm: [{k: a, tags: [x]}]}`, `{lm: [{k: a, tags: [p, q]}]}`, nil, nil),
				both(`{lm: [{k: a, tags: [x]}]}`, `{lm: [{k: a}]}`, nil, nil),
				both(`{lm: [{k: a, tags: [p, q]}]}`, `{lm: [{k: a, tags: [q, p]}]}`, nil, nil),
				both(`{lm: [{k: a, tags: [x]}]}`, `{lm: [{k: b, tags: [q]}]}`, nil, nil),
				both(`{al: [{labels: {a: "1"}}]}`, `{al: [{labels: {a: "2", b: "3"}}]}`, nil, nil),
				both(`{al: [{labels: {a: "1"}}]}`, `{al: [{}, {labels: {b: "3"}}]}`, nil, nil),
				both(`{al: [{labels: {a: "1"}}]}`, `{al: [{labels: {b: "1"}}]}`, nil, nil),
			),
		}, celCase{
			name: "whole value with set and list-map inside (order-sensitive)/" + m,
			schema: bounded(t, r.Replace(`
type: object
properties:
  w:
    type: object
    x-kubernetes-mutability: $M
    properties:
      s:
        type: array
        maxItems: 10
        x-kubernetes-list-type: set
        items: {type: string, maxLength: 10}
      lm:
        type: array
        maxItems: 10
        x-kubernetes-list-type: map
        x-kubernetes-list-map-keys: [k]
        items:
          type: object
          required: [k]
          properties:
            k: {type: string, maxLength: 10}
            s:
              type: array
              maxItems: 10
              x-kubernetes-list-type: set
              items: {type: string, maxLength: 10}
`)),
			trans: cat(
				both(`{w: {s: [a, b]}}`, `{w: {s: [b, a]}}`, nil, nil),
				both(`{w: {lm: [{k: a}, {k: b}]}}`, `{w: {lm: [{k: b}, {k: a}]}}`, nil, nil),
				both(`{w: {lm: [{k: a, s: [p, q]}]}}`, `{w: {lm: [{k: a, s: [q, p]}]}}`, nil, nil),
				both(`{w: {lm: [{k: a, s: [p, q]}]}}`, `{w: {lm: [{k: a, s: [p, q]}]}}`, nil, nil),
				both(`{w: {s: [a]}}`, `{w: {s: [a]}}`, nil, nil),
				both(`{}`, `{w: {s: [a]}}`, nil, nil),
			),
		}, celCase{
			name: "numbers: preserve-unknown-fields and int-or-string/" + m,
			schema: bounded(t, r.Replace(`
type: object
properties:
  free:
    type: object
    x-kubernetes-preserve-unknown-fields: true
    x-kubernetes-mutability: $M
  ios:
    x-kubernetes-int-or-string: true
    x-kubernetes-mutability: $M
  num:
    type: number
    x-kubernetes-mutability: $M
`)),
			trans: cat(
				both(`{free: {x: 1}}`, `{free: {x: 1.0}}`, nil, nil),
				both(`{free: {x: 1}}`, `{free: {x: 1.5}}`, nil, nil),
				both(`{free: {x: 1}}`, `{free: {x: "1"}}`, nil, nil),
				both(`{free: {x: [1, 2]}}`, `{free: {x: [2, 1]}}`, nil, nil),
				both(`{free: {x: {a: 1}}}`, `{free: {x: {a: 1, b: null}}}`, nil, nil),
				both(`{ios: 1}`, `{ios: "1"}`, nil, nil),
				both(`{ios: 1}`, `{ios: 1}`, nil, nil),
				both(`{num: 1}`, `{num: 1.0}`, nil, nil),
				both(`{num: 1}`, `{num: 1.5}`, nil, nil),
			),
		})
	}
	// Refused: each must be refused, with the reason.
	cs = append(cs, celCase{
		name: "refused: key mutability on list items",
		schema: `
type: object
properties:
  l:
    type: array
    items:
      type: array
      items: {type: string}
      x-kubernetes-key-mutability: Immutable
`,
		refuse: "x-kubernetes-key-mutability on list items or map values is not translated",
	}, celCase{
		name: "refused: key mutability on map values",
		schema: `
type: object
properties:
  m:
    type: object
    additionalProperties:
      type: object
      additionalProperties: {type: string}
      x-kubernetes-key-mutability: AddOnly
`,
		refuse: "properties[m].additionalProperties.x-kubernetes-key-mutability",
	}, celCase{
		name: "refused: nullable map with key mutability",
		schema: `
type: object
properties:
  m:
    type: object
    nullable: true
    x-kubernetes-key-mutability: Immutable
    additionalProperties: {type: string}
`,
		refuse: "nullable lists and maps are not translated",
	}, celCase{
		name: "refused: misplaced marker (AddOnly on a map)",
		schema: `
type: object
properties:
  m:
    type: object
    x-kubernetes-mutability: AddOnly
    additionalProperties: {type: string}
`,
		refuse: `misplaced or invalid marker: Unsupported value: "AddOnly"`,
	}, celCase{
		name: "refused: cost of unbounded list-map key set inside an unbounded list",
		schema: `
type: object
properties:
  outer:
    type: array
    items:
      type: object
      properties:
        lm:
          type: array
          x-kubernetes-list-type: map
          x-kubernetes-list-map-keys: [k]
          x-kubernetes-key-mutability: Immutable
          items:
            type: object
            required: [k]
            properties:
              k: {type: string}
`,
		refuse: "cost budget",
	})
	return cs
}

func TestToCELDifferential(t *testing.T) {
	var n, agree, refused int
	for _, c := range celCases(t) {
		t.Run(c.name, func(t *testing.T) {
			d, err := newDiffer(t, widgetCRD(t, c.schema))
			if c.refuse != "" {
				if err == nil {
					t.Fatalf("ToCEL accepted, want refusal containing %q; output:\n%s", c.refuse, d.out)
				}
				if !strings.Contains(err.Error(), c.refuse) {
					t.Fatalf("got error %v, want it to contain %q", err, c.refuse)
				}
				refused++
				return
			}
			if err != nil && c.costMay && strings.Contains(err.Error(), "cost budget") &&
				(strings.Contains(err.Error(), "(maxItems)") || strings.Contains(err.Error(), "(maxLength)") || strings.Contains(err.Error(), "(maxProperties)")) {
				t.Logf("refused for cost: %v", err)
				refused++
				return
			}
			if err != nil {
				t.Fatalf("ToCEL: %v", err)
			}
			// Every transition, and also with the whole spec absent on
			// either side (the parent-exists rule at spec).
			trans := append([]transition{}, c.trans...)
			for _, tr := range c.trans {
				trans = append(trans, transition{old: "", new: tr.new}, transition{old: tr.old, new: ""})
			}
			for _, tr := range trans {
				n++
				ok, detail := d.check(t, widget(t, tr.old), widget(t, tr.new))
				if ok {
					agree++
				} else {
					t.Errorf("%q -> %q: disagree: %s\nrules: %s", tr.old, tr.new, detail, d.out)
				}
			}
		})
	}
	fmt.Fprintf(os.Stderr, "to-cel differential: %d cases, %d agree, %d refused as inexpressible\n", n, agree, refused)
}

// TestToCELMessages checks a generated rule and its message end to end.
func TestToCELMessages(t *testing.T) {
	d, err := newDiffer(t, widgetCRD(t, `
type: object
properties:
  foo: {type: string, x-kubernetes-mutability: Immutable}
`))
	if err != nil {
		t.Fatal(err)
	}
	vd := d.v.Update(widget(t, `{foo: a}`), widget(t, `{foo: b}`), "ns")
	if len(vd.Errors) != 1 || !strings.Contains(vd.Errors[0].Error(), "spec.foo is immutable") {
		t.Errorf("got %v", vd.Errors)
	}
	if _, err := ToCEL([]byte(`{"spec": {"validation": {"openAPIV3Schema": {"type": "object", "properties": {"a": {"type": "string", "x-kubernetes-mutability": "Immutable"}}}}}}`)); err == nil || !strings.Contains(err.Error(), "v1beta1") {
		t.Errorf("v1beta1 schema: got %v, want a refusal", err)
	}
}

// fuzzSchema has translatable markers of every kind, bounded so that the
// rules fit the cost budget.
const fuzzSchema = `
type: object
properties:
  a: {type: string, maxLength: 5, x-kubernetes-mutability: Immutable}
  b: {type: string, maxLength: 5, x-kubernetes-mutability: AddOnly}
  c: {type: integer, x-kubernetes-mutability: RemoveOnly}
  set:
    type: array
    maxItems: 4
    x-kubernetes-list-type: set
    x-kubernetes-key-mutability: AddOnly
    items: {type: string, maxLength: 3}
  lm:
    type: array
    maxItems: 4
    x-kubernetes-list-type: map
    x-kubernetes-list-map-keys: [k]
    x-kubernetes-key-mutability: RemoveOnly
    items:
      type: object
      required: [k]
      x-kubernetes-mutability: Immutable
      properties:
        k: {type: string, maxLength: 3}
        v: {type: integer}
  atom:
    type: array
    maxItems: 4
    x-kubernetes-key-mutability: Immutable
    items:
      type: object
      properties:
        f: {type: string, maxLength: 3, x-kubernetes-mutability: AddOnly}
  m:
    type: object
    maxProperties: 4
    x-kubernetes-key-mutability: Immutable
    additionalProperties: {type: string, maxLength: 3, x-kubernetes-mutability: Immutable}
  whole:
    type: object
    x-kubernetes-mutability: Immutable
    properties:
      s: {type: array, maxItems: 4, x-kubernetes-list-type: set, items: {type: string, maxLength: 3}}
`

// randomSpec builds a random valid spec for fuzzSchema.
func randomSpec(r *rand.Rand) map[string]any {
	words := []string{"x", "y", "z"}
	w := func() string { return words[r.Intn(len(words))] }
	spec := map[string]any{}
	maybe := func(k string, v func() any) {
		if r.Intn(2) == 0 {
			spec[k] = v()
		}
	}
	maybe("a", func() any { return w() })
	maybe("b", func() any { return w() })
	maybe("c", func() any { return int64(r.Intn(2)) })
	maybe("set", func() any {
		var l []any
		for _, i := range r.Perm(3)[:r.Intn(4)] {
			l = append(l, words[i])
		}
		return l
	})
	maybe("lm", func() any {
		var l []any
		for _, i := range r.Perm(3)[:r.Intn(4)] {
			it := map[string]any{"k": words[i]}
			if r.Intn(2) == 0 {
				it["v"] = int64(r.Intn(2))
			}
			l = append(l, it)
		}
		return l
	})
	maybe("atom", func() any {
		var l []any
		for i := r.Intn(4); i > 0; i-- {
			it := map[string]any{}
			if r.Intn(2) == 0 {
				it["f"] = w()
			}
			l = append(l, it)
		}
		return l
	})
	maybe("m", func() any {
		m := map[string]any{}
		for i := r.Intn(4); i > 0; i-- {
			m[w()] = w()
		}
		return m
	})
	maybe("whole", func() any {
		var l []any
		for _, i := range r.Perm(3)[:r.Intn(4)] {
			l = append(l, words[i])
		}
		return map[string]any{"s": l}
	})
	return spec
}

// mutate changes a spec a little, so that old and new are often close.
func mutate(r *rand.Rand, spec map[string]any) map[string]any {
	out := celDeepCopy(spec).(map[string]any)
	other := randomSpec(r)
	for _, k := range []string{"a", "b", "c", "set", "lm", "atom", "m", "whole"} {
		if r.Intn(3) == 0 {
			if v, ok := other[k]; ok {
				out[k] = v
			} else {
				delete(out, k)
			}
		}
	}
	if l, ok := out["set"].([]any); ok && len(l) > 1 && r.Intn(2) == 0 {
		l[0], l[1] = l[1], l[0]
	}
	if l, ok := out["lm"].([]any); ok && len(l) > 1 && r.Intn(2) == 0 {
		l[0], l[1] = l[1], l[0]
	}
	return out
}

func FuzzToCEL(f *testing.F) {
	for i := int64(0); i < 8; i++ {
		f.Add(i)
	}
	var d *differ
	f.Fuzz(func(t *testing.T, seed int64) {
		if d == nil {
			var err error
			if d, err = newDiffer(t, widgetCRD(t, fuzzSchema)); err != nil {
				t.Fatalf("ToCEL: %v", err)
			}
		}
		r := rand.New(rand.NewSource(seed))
		for i := 0; i < 20; i++ {
			old := randomSpec(r)
			new := mutate(r, old)
			o := map[string]any{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": map[string]any{"name": "w"}, "spec": old}
			n := map[string]any{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": map[string]any{"name": "w"}, "spec": new}
			if ok, detail := d.check(t, o, n); !ok {
				a, _ := json.Marshal(old)
				b, _ := json.Marshal(new)
				t.Fatalf("%s -> %s: disagree: %s", a, b, detail)
			}
		}
	})
}
