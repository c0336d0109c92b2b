package immutable

import (
	"strings"
	"testing"
)

type want struct{ path, rule, value, msg string }

func checkViolations(t *testing.T, name string, got []Violation, want []want) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: got %s, want %d violations %v", name, violations(got), len(want), want)
		return
	}
	for i, w := range want {
		g := got[i]
		if g.Path != w.path || g.Rule != w.rule || g.Value != w.value || (w.msg != "" && g.Message != w.msg) {
			t.Errorf("%s: got %q %s %s %q, want %q %s %s %q", name, g.Path, g.Rule, g.Value, g.Message, w.path, w.rule, w.value, w.msg)
		}
	}
}

const M, K = MutabilityExtension, KeyMutabilityExtension

// TestRecursion: x-kubernetes-mutability makes everything below the marked
// node immutable; the violation is reported at the marked node, naming the
// first difference.
func TestRecursion(t *testing.T) {
	for _, m := range all {
		s := mustSchema(t, replaceM(`
type: object
properties:
  spec:
    type: object
    properties:
      foo:
        type: object
        x-kubernetes-mutability: $M
        properties:
          bar:
            type: object
            properties:
              baz: {type: string}
              list: {type: array, items: {type: string}}
              labels: {type: object, additionalProperties: {type: string}}
          free:
            type: object
            x-kubernetes-preserve-unknown-fields: true
`, m))
		changed := map[string]string{
			Immutable:  "field is immutable",
			AddOnly:    "field may only be added, not removed or changed: value changed",
			RemoveOnly: "field may only be removed, not added or changed: value changed",
		}[m]
		tests := []struct {
			name, old, new string
			want           []want
		}{
			{"nested scalar changed", `{spec: {foo: {bar: {baz: a}}}}`, `{spec: {foo: {bar: {baz: b}}}}`,
				[]want{{"spec.foo", M, m, changed + " (first difference at spec.foo.bar.baz)"}}},
			{"nested scalar added", `{spec: {foo: {bar: {}}}}`, `{spec: {foo: {bar: {baz: b}}}}`,
				[]want{{"spec.foo", M, m, changed + " (first difference at spec.foo.bar.baz)"}}},
			{"nested object removed", `{spec: {foo: {bar: {}}}}`, `{spec: {foo: {}}}`,
				[]want{{"spec.foo", M, m, changed + " (first difference at spec.foo.bar)"}}},
			{"nested list appended", `{spec: {foo: {bar: {list: [a]}}}}`, `{spec: {foo: {bar: {list: [a, b]}}}}`,
				[]want{{"spec.foo", M, m, changed + " (first difference at spec.foo.bar.list[1])"}}},
			{"nested map key added", `{spec: {foo: {bar: {labels: {a: x}}}}}`, `{spec: {foo: {bar: {labels: {a: x, b: y}}}}}`,
				[]want{{"spec.foo", M, m, changed + " (first difference at spec.foo.bar.labels.b)"}}},
			{"unknown field changed", `{spec: {foo: {free: {x: 1}}}}`, `{spec: {foo: {free: {x: 2}}}}`,
				[]want{{"spec.foo", M, m, changed + " (first difference at spec.foo.free.x)"}}},
			{"type changed", `{spec: {foo: {bar: {baz: a}}}}`, `{spec: {foo: "x"}}`,
				[]want{{"spec.foo", M, m, changed}}},
			{"unchanged", `{spec: {foo: {bar: {baz: a, list: [a], labels: {a: x}}}}}`, `{spec: {foo: {bar: {baz: a, list: [a], labels: {a: x}}}}}`, nil},
			{"int and float of equal value", `{spec: {foo: {free: {x: 1}}}}`, `{spec: {foo: {free: {x: 1.0}}}}`, nil},
			{"int and float of other value", `{spec: {foo: {free: {x: 1}}}}`, `{spec: {foo: {free: {x: 1.5}}}}`,
				[]want{{"spec.foo", M, m, ""}}},
			{"string and number", `{spec: {foo: {free: {x: 1}}}}`, `{spec: {foo: {free: {x: "1"}}}}`,
				[]want{{"spec.foo", M, m, ""}}},
			{"null and absent", `{spec: {foo: {free: {x: null}}}}`, `{spec: {foo: {free: {}}}}`,
				[]want{{"spec.foo", M, m, ""}}},
			{"empty and null", `{spec: {foo: {free: {x: []}}}}`, `{spec: {foo: {free: {x: null}}}}`,
				[]want{{"spec.foo", M, m, ""}}},
			{"key order does not matter", `{spec: {foo: {bar: {baz: a, list: []}}}}`, `{spec: {foo: {bar: {list: [], baz: a}}}}`, nil},
			// Parent-exists rule: spec is created, so is foo.
			{"parent created", `{}`, `{spec: {foo: {bar: {baz: a}}}}`, nil},
			{"parent deleted", `{spec: {foo: {bar: {baz: a}}}}`, `{}`, nil},
		}
		for _, tt := range tests {
			checkViolations(t, m+"/"+tt.name, Compare(s, obj(t, tt.old), obj(t, tt.new)), tt.want)
		}
	}
}

func replaceM(s, m string) string { return strings.ReplaceAll(s, "$M", m) }

// TestParentExists: constraints apply only where the parent exists in both
// revisions.
func TestParentExists(t *testing.T) {
	s := mustSchema(t, `
type: object
properties:
  foo:
    type: object
    properties:
      bar:
        type: string
        x-kubernetes-mutability: Immutable
      keys:
        type: object
        x-kubernetes-key-mutability: Immutable
        additionalProperties: {type: string}
`)
	tests := []struct {
		name, old, new string
		want           []want
	}{
		{"parent created with child", `{}`, `{foo: {bar: x}}`, nil},
		{"parent deleted with child", `{foo: {bar: x}}`, `{}`, nil},
		{"child added to existing parent", `{foo: {}}`, `{foo: {bar: x}}`,
			[]want{{"foo.bar", M, Immutable, "field is immutable: must not be added after creation"}}},
		{"child removed from existing parent", `{foo: {bar: x}}`, `{foo: {}}`,
			[]want{{"foo.bar", M, Immutable, "field is immutable: must not be removed"}}},
		{"child changed", `{foo: {bar: x}}`, `{foo: {bar: y}}`,
			[]want{{"foo.bar", M, Immutable, "field is immutable"}}},
		{"keys with parent created", `{}`, `{foo: {keys: {a: "1"}}}`, nil},
		{"keys added to existing parent", `{foo: {}}`, `{foo: {keys: {a: "1"}}}`,
			[]want{{"foo.keys", K, Immutable, `keys are immutable: key "a" was added`}}},
		{"parent replaced by another type", `{foo: "x"}`, `{foo: {bar: x}}`, nil},
		{"parent null then object", `{foo: null}`, `{foo: {bar: x}}`, nil},
	}
	for _, tt := range tests {
		checkViolations(t, tt.name, Compare(s, obj(t, tt.old), obj(t, tt.new)), tt.want)
	}
}

// TestMessages: paths and messages of each kind of violation.
func TestMessages(t *testing.T) {
	tests := []struct {
		name, schema, old, new string
		want                   []want
	}{
		{"AddOnly removed", `{type: object, properties: {foo: {type: string, x-kubernetes-mutability: AddOnly}}}`,
			`{foo: a}`, `{}`, []want{{"foo", M, AddOnly, "field may only be added, not removed or changed: field was removed"}}},
		{"RemoveOnly added", `{type: object, properties: {foo: {type: string, x-kubernetes-mutability: RemoveOnly}}}`,
			`{}`, `{foo: a}`, []want{{"foo", M, RemoveOnly, "field may only be removed, not added or changed: field was added"}}},
		{"atomic list item changed", `{type: object, properties: {foo: {type: array, items: {type: string, x-kubernetes-mutability: Immutable}}}}`,
			`{foo: [a, b, c]}`, `{foo: [a, x, y]}`, []want{
				{"foo[1]", M, Immutable, "field is immutable"},
				{"foo[2]", M, Immutable, "field is immutable"}}},
		{"list-map item changed, reported at its new index", `{type: object, properties: {foo: {type: array, x-kubernetes-list-type: map, x-kubernetes-list-map-keys: [k], items: {type: object, properties: {k: {type: string}, v: {type: integer}}, x-kubernetes-mutability: Immutable}}}}`,
			`{foo: [{k: a, v: 1}, {k: b, v: 1}]}`, `{foo: [{k: b, v: 2}, {k: a, v: 1}]}`, []want{
				{"foo[0]", M, Immutable, "field is immutable (first difference at foo[0].v)"}}},
		{"list-map with two keys", `{type: object, properties: {foo: {type: array, x-kubernetes-list-type: map, x-kubernetes-list-map-keys: [k, id], x-kubernetes-key-mutability: Immutable, items: {type: object, properties: {k: {type: string}, id: {type: integer}}}}}}`,
			`{foo: [{k: a, id: 1}]}`, `{foo: [{k: a, id: 2}]}`, []want{
				{"foo", K, Immutable, `keys are immutable: key (k="a", id=2) was added; key (k="a", id=1) was removed`}}},
		{"map keys", `{type: object, properties: {foo: {type: object, x-kubernetes-key-mutability: AddOnly, additionalProperties: {type: string}}}}`,
			`{foo: {a: "1", b: "1", c: "1"}}`, `{foo: {d: "1"}}`, []want{
				{"foo", K, AddOnly, `keys may only be added: keys "a", "b", "c" were removed`}}},
		{"indices", `{type: object, properties: {foo: {type: array, x-kubernetes-key-mutability: RemoveOnly, items: {type: string}}}}`,
			`{foo: []}`, `{foo: [a, b, c, d, e, f, g]}`, []want{
				{"foo", K, RemoveOnly, `keys may only be removed: indices 0, 1, 2, 3, 4 and 2 more were added`}}},
		{"set items", `{type: object, properties: {foo: {type: array, x-kubernetes-list-type: set, x-kubernetes-key-mutability: Immutable, items: {type: integer}}}}`,
			`{foo: [1]}`, `{foo: [2]}`, []want{
				{"foo", K, Immutable, `keys are immutable: item 2 was added; item 1 was removed`}}},
		{"set of numbers: 1 and 1.0 are the same item", `{type: object, properties: {foo: {type: array, x-kubernetes-list-type: set, x-kubernetes-key-mutability: Immutable, items: {type: number}}}}`,
			`{foo: [1, 2.5]}`, `{foo: [2.5, 1.0]}`, nil},
		{"map values", `{type: object, properties: {labels: {type: object, additionalProperties: {type: string, x-kubernetes-mutability: Immutable}}}}`,
			`{labels: {a: x}}`, `{labels: {a: y}}`, []want{{"labels.a", M, Immutable, "field is immutable"}}},
		{"nested lists: key mutability of an appended inner list", `{type: object, properties: {foo: {type: array, items: {type: array, x-kubernetes-key-mutability: Immutable, items: {type: string}}}}}`,
			`{foo: [[a]]}`, `{foo: [[b], [c]]}`, []want{{"foo[1]", K, Immutable, `keys are immutable: index 0 was added`}}},
		{"both markers on a map", `{type: object, properties: {foo: {type: object, x-kubernetes-mutability: Immutable, x-kubernetes-key-mutability: AddOnly, additionalProperties: {type: string}}}}`,
			`{foo: {a: x}}`, `{foo: {a: x, b: y}}`, []want{{"foo", M, Immutable, "field is immutable (first difference at foo.b)"}}},
		{"unknown marker value is ignored", `{type: object, properties: {foo: {type: string, x-kubernetes-mutability: Sometimes}}}`,
			`{foo: a}`, `{foo: b}`, nil},
		{"properties and additionalProperties together", `{type: object, properties: {foo: {type: object, properties: {p: {type: string, x-kubernetes-mutability: Immutable}}, additionalProperties: {type: string, x-kubernetes-mutability: Immutable}}}}`,
			`{foo: {p: a, q: a}}`, `{foo: {p: b, q: b, r: c}}`, []want{
				{"foo.p", M, Immutable, "field is immutable"},
				{"foo.q", M, Immutable, "field is immutable"}}},
		{"duplicate set items do not confuse matching", `{type: object, properties: {foo: {type: array, x-kubernetes-list-type: set, items: {type: string, x-kubernetes-mutability: Immutable}}}}`,
			`{foo: [a, a]}`, `{foo: [a, a]}`, nil},
		{"root marker (forbidden, still judged)", `{type: object, x-kubernetes-mutability: Immutable, properties: {foo: {type: string}}}`,
			`{foo: a}`, `{foo: b}`, []want{{"<root>", M, Immutable, "field is immutable (first difference at foo)"}}},
	}
	for _, tt := range tests {
		s := mustSchema(t, tt.schema)
		checkViolations(t, tt.name, Compare(s, obj(t, tt.old), obj(t, tt.new)), tt.want)
	}
}

func TestViolationString(t *testing.T) {
	v := Violation{Path: "spec.foo", Rule: M, Value: Immutable, Message: "field is immutable"}
	if got, want := v.String(), "spec.foo: Forbidden: field is immutable"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestEqual(t *testing.T) {
	tests := []struct {
		a, b any
		want bool
	}{
		{int64(1), float64(1), true},
		{int64(1), float64(1.5), false},
		{int(3), int64(3), true},
		{float64(1e300), float64(1e300), true},
		{"1", int64(1), false},
		{nil, map[string]any(nil), true},
		{nil, map[string]any{}, false},
		{[]any{}, []any(nil), false},
		{true, true, true},
		{true, "true", false},
		{map[string]any{"a": int64(1)}, map[string]any{"a": 1.0}, true},
		{[]any{int64(1), "x"}, []any{"x", int64(1)}, false},
	}
	for _, tt := range tests {
		if got := equal(tt.a, tt.b); got != tt.want {
			t.Errorf("equal(%#v, %#v): got %v, want %v", tt.a, tt.b, got, tt.want)
		}
		if got := canonical(tt.a) == canonical(tt.b); got != tt.want {
			t.Errorf("canonical(%#v) == canonical(%#v): got %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}
