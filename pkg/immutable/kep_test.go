package immutable

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// The examples 1–10 of the KEP "Immutable Fields": every allowed and
// disallowed transition, in both directions where the reverse has a
// defined expectation, for every marker value and list/map type variant
// the example names.

var (
	all        = []string{Immutable, AddOnly, RemoveOnly}
	none       = []string{}
	onlyAdd    = []string{AddOnly}
	onlyRemove = []string{RemoveOnly}
)

type transition struct {
	old, new string
	allowed  []string // marker values for which the transition is allowed
	note     string
}

// rev returns the reverse transition with its own expectation.
func rev(t transition, allowed []string) transition {
	return transition{old: t.new, new: t.old, allowed: allowed, note: "reverse of " + t.old + " -> " + t.new}
}

type kepExample struct {
	name    string
	schema  string // $M: marker value, $T: the list/map type line (or nothing)
	typeKey string
	types   []string // "" for unset
	rule    string
	values  []string // marker values to test; all three if empty
	trans   []transition
}

func both(old, new string, allowed, reverse []string) []transition {
	t := transition{old: old, new: new, allowed: allowed}
	return []transition{t, rev(t, reverse)}
}

func cat(ts ...[]transition) []transition { return slices.Concat(ts...) }

var kepExamples = []kepExample{{
	name: "1 field of an object",
	schema: `
type: object
properties:
  foo:
    type: string
    x-kubernetes-mutability: $M
`,
	rule: MutabilityExtension,
	trans: cat(
		both(`{}`, `{foo: a}`, onlyAdd, onlyRemove),
		both(`{foo: a}`, `{foo: b}`, none, none),
		both(`{foo: a}`, `{foo: a}`, all, all),
		both(`{}`, `{}`, all, all),
	),
}, {
	name: "2 items of a list, list type unset/atomic",
	schema: `
type: object
properties:
  foo:
    type: array
    $T
    items:
      type: object
      properties:
        name: {type: string}
        v: {type: integer}
      x-kubernetes-mutability: $M
`,
	typeKey: "x-kubernetes-list-type",
	types:   []string{"", "atomic"},
	rule:    MutabilityExtension,
	trans: cat(
		both(`{}`, `{foo: [{name: a}]}`, all, all),
		both(`{}`, `{foo: []}`, all, all),
		both(`{foo: [{name: a}]}`, `{foo: [{name: a}, {name: b}]}`, all, all),
		both(`{foo: [{name: a}]}`, `{foo: []}`, all, all),
		both(`{foo: [{name: a}]}`, `{foo: [{name: b}]}`, none, none),
		both(`{foo: [{name: a}]}`, `{foo: [{name: b}, {name: a}]}`, none, none),
		both(`{foo: [{name: a}, {name: b}]}`, `{foo: [{name: b}, {name: a}]}`, none, none),
		both(`{foo: [{name: a, v: 1}]}`, `{foo: [{name: a, v: 2}]}`, none, none),
		both(`{foo: [{name: a}]}`, `{foo: [{name: a, v: 1}]}`, none, none),
		both(`{foo: [{name: a, v: 1}]}`, `{foo: [{name: a, v: 1.0}]}`, all, all),
	),
}, {
	name: "3 items of a list-map",
	schema: `
type: object
properties:
  foo:
    type: array
    x-kubernetes-list-type: map
    x-kubernetes-list-map-keys: ["k"]
    items:
      type: object
      required: ["k"]
      properties:
        k: {type: string}
        v: {type: integer}
      x-kubernetes-mutability: $M
`,
	rule: MutabilityExtension,
	trans: cat(
		both(`{}`, `{foo: [{k: a}]}`, all, all),
		both(`{}`, `{foo: []}`, all, all),
		both(`{foo: [{k: a}]}`, `{foo: [{k: a}, {k: b}]}`, all, all),
		both(`{foo: [{k: a}]}`, `{foo: []}`, all, all),
		// The KEP's TODO: removal plus addition is allowed (decision).
		both(`{foo: [{k: a}]}`, `{foo: [{k: b}]}`, all, all),
		both(`{foo: [{k: a}, {k: b}]}`, `{foo: [{k: b}, {k: a}]}`, all, all),
		both(`{foo: [{k: a, v: 1}]}`, `{foo: [{k: a, v: 2}]}`, none, none),
		both(`{foo: [{k: a, v: 1}, {k: b, v: 1}]}`, `{foo: [{k: b, v: 1}, {k: a, v: 2}]}`, none, none),
		both(`{foo: [{k: a, v: 1}]}`, `{foo: [{k: a}]}`, none, none),
	),
}, {
	name: "4 items of a set",
	schema: `
type: object
properties:
  foo:
    type: array
    x-kubernetes-list-type: set
    items:
      type: string
      x-kubernetes-mutability: $M
`,
	rule: MutabilityExtension,
	trans: cat(
		both(`{}`, `{foo: [a]}`, all, all),
		both(`{}`, `{foo: []}`, all, all),
		both(`{foo: [a]}`, `{foo: [a, b]}`, all, all),
		both(`{foo: [a]}`, `{foo: []}`, all, all),
		both(`{foo: [a]}`, `{foo: [b]}`, all, all),
		both(`{foo: [a]}`, `{foo: [b, a]}`, all, all),
	),
}, {
	name: "4b items of a set of atomic maps",
	schema: `
type: object
properties:
  foo:
    type: array
    x-kubernetes-list-type: set
    items:
      type: object
      x-kubernetes-mutability: $M
      x-kubernetes-map-type: atomic
      additionalProperties:
        type: string
`,
	rule: MutabilityExtension,
	// The items are maps: only Immutable is allowed on them.
	values: []string{Immutable},
	trans: cat(
		both(`{foo: [{x: "1"}]}`, `{foo: [{x: "1"}, {x: "2"}]}`, all, all),
		both(`{foo: [{x: "1"}]}`, `{foo: [{x: "2"}]}`, all, all),
		both(`{foo: [{x: "1"}, {y: "2"}]}`, `{foo: [{y: "2"}, {x: "1"}]}`, all, all),
		both(`{foo: [{x: "1", y: "2"}]}`, `{foo: [{y: "2", x: "1"}]}`, all, all),
	),
}, {
	name: "5 values of a map, map type unset/granular/atomic",
	schema: `
type: object
properties:
  foo:
    type: object
    $T
    additionalProperties:
      type: string
      x-kubernetes-mutability: $M
`,
	typeKey: "x-kubernetes-map-type",
	types:   []string{"", "granular", "atomic"},
	rule:    MutabilityExtension,
	trans: cat(
		both(`{}`, `{foo: {a: "1"}}`, all, all),
		both(`{}`, `{foo: {}}`, all, all),
		both(`{foo: {a: "1"}}`, `{foo: {a: "1", b: "2"}}`, all, all),
		both(`{foo: {a: "1"}}`, `{foo: {}}`, all, all),
		both(`{foo: {a: "1"}}`, `{foo: {b: "1"}}`, all, all),
		both(`{foo: {a: "1"}}`, `{foo: {a: "2"}}`, none, none),
	),
}, {
	name: "7 keys of a list, list type unset/atomic",
	schema: `
type: object
properties:
  foo:
    type: array
    $T
    x-kubernetes-key-mutability: $M
    items:
      type: object
      properties:
        name: {type: string}
`,
	typeKey: "x-kubernetes-list-type",
	types:   []string{"", "atomic"},
	rule:    KeyMutabilityExtension,
	trans: cat(
		both(`{}`, `{foo: []}`, all, all),
		both(`{foo: [{name: a}]}`, `{foo: [{name: b}]}`, all, all),
		both(`{foo: [{name: a}, {name: b}]}`, `{foo: [{name: b}, {name: a}]}`, all, all),
		both(`{}`, `{foo: [{name: a}]}`, onlyAdd, onlyRemove),
		both(`{foo: [{name: a}]}`, `{foo: [{name: a}, {name: b}]}`, onlyAdd, onlyRemove),
		both(`{foo: [{name: a}]}`, `{foo: [{name: b}, {name: a}]}`, onlyAdd, onlyRemove),
		both(`{foo: [{name: a}]}`, `{foo: []}`, onlyRemove, onlyAdd),
	),
}, {
	name: "8 keys of a list-map",
	schema: `
type: object
properties:
  foo:
    type: array
    x-kubernetes-list-type: map
    x-kubernetes-list-map-keys: ["k"]
    x-kubernetes-key-mutability: $M
    items:
      type: object
      required: ["k"]
      properties:
        k: {type: string}
        v: {type: integer}
`,
	rule: KeyMutabilityExtension,
	trans: cat(
		both(`{}`, `{foo: []}`, all, all),
		both(`{foo: [{k: a, v: 1}]}`, `{foo: [{k: a, v: 2}]}`, all, all),
		both(`{foo: [{k: a}, {k: b}]}`, `{foo: [{k: b}, {k: a}]}`, all, all),
		both(`{}`, `{foo: [{k: a}]}`, onlyAdd, onlyRemove),
		both(`{foo: [{k: a}]}`, `{foo: [{k: a}, {k: b}]}`, onlyAdd, onlyRemove),
		both(`{foo: [{k: a}]}`, `{foo: []}`, onlyRemove, onlyAdd),
		both(`{foo: [{k: a}]}`, `{foo: [{k: b}]}`, none, none),
	),
}, {
	name: "9 keys of a set",
	schema: `
type: object
properties:
  foo:
    type: array
    x-kubernetes-list-type: set
    x-kubernetes-key-mutability: $M
    items:
      type: string
`,
	rule: KeyMutabilityExtension,
	trans: cat(
		both(`{}`, `{foo: []}`, all, all),
		both(`{foo: [a, b]}`, `{foo: [b, a]}`, all, all),
		both(`{}`, `{foo: [a]}`, onlyAdd, onlyRemove),
		both(`{foo: [a]}`, `{foo: [a, b]}`, onlyAdd, onlyRemove),
		both(`{foo: [a]}`, `{foo: [b, a]}`, onlyAdd, onlyRemove),
		// The KEP's typo: "Disallowed for RemoveOnly" means allowed.
		both(`{foo: [a]}`, `{foo: []}`, onlyRemove, onlyAdd),
		both(`{foo: [a]}`, `{foo: [b]}`, none, none),
	),
}, {
	name: "10 keys of a map, map type unset/granular/atomic",
	schema: `
type: object
properties:
  foo:
    type: object
    $T
    x-kubernetes-key-mutability: $M
    additionalProperties:
      type: string
`,
	typeKey: "x-kubernetes-map-type",
	types:   []string{"", "granular", "atomic"},
	rule:    KeyMutabilityExtension,
	trans: cat(
		both(`{}`, `{foo: {}}`, all, all),
		both(`{foo: {a: "1"}}`, `{foo: {a: "2"}}`, all, all),
		both(`{}`, `{foo: {a: "1"}}`, onlyAdd, onlyRemove),
		both(`{foo: {a: "1"}}`, `{foo: {a: "1", b: "2"}}`, onlyAdd, onlyRemove),
		both(`{foo: {a: "1"}}`, `{foo: {}}`, onlyRemove, onlyAdd),
		both(`{foo: {a: "1"}}`, `{foo: {b: "1"}}`, none, none),
	),
}}

func TestKEPExamples(t *testing.T) {
	for _, ex := range kepExamples {
		types := ex.types
		if len(types) == 0 {
			types = []string{""}
		}
		for _, typ := range types {
			values := ex.values
			if len(values) == 0 {
				values = all
			}
			for _, m := range values {
				line := ""
				if typ != "" {
					line = ex.typeKey + ": " + typ
				}
				y := strings.NewReplacer("$M", m, "$T", line).Replace(ex.schema)
				name := fmt.Sprintf("example %s/type=%q/%s", ex.name, typ, m)
				t.Run(name, func(t *testing.T) {
					s := mustSchema(t, y)
					if ps := ValidatePlacement(s, ""); len(ps) != 0 {
						t.Fatalf("ValidatePlacement: got %v, want none", ps)
					}
					for _, tr := range ex.trans {
						got := Compare(s, obj(t, tr.old), obj(t, tr.new))
						want := slices.Contains(tr.allowed, m)
						if (len(got) == 0) != want {
							t.Errorf("%s -> %s %s: got violations %s, want allowed=%v", tr.old, tr.new, tr.note, violations(got), want)
						}
						for _, v := range got {
							if v.Rule != ex.rule || v.Value != m || v.Path != "foo" && !strings.HasPrefix(v.Path, "foo[") && !strings.HasPrefix(v.Path, "foo.") {
								t.Errorf("%s -> %s: got violation %s [%s: %s], want rule %s value %s at foo", tr.old, tr.new, v, v.Rule, v.Value, ex.rule, m)
							}
						}
					}
				})
			}
		}
	}
}

// TestKEPExample5Typo: the KEP's example 5 says "type: array" for a map;
// the schema is read by its additionalProperties, with the same results
// (but ValidatePlacement does not see a map there: the server would reject
// such a schema anyway, items being required for arrays).
func TestKEPExample5Typo(t *testing.T) {
	s := mustSchema(t, `
type: object
properties:
  foo:
    type: array
    additionalProperties:
      type: string
      x-kubernetes-mutability: Immutable
`)
	tests := []struct {
		old, new string
		want     int
	}{
		{`{foo: {a: "1"}}`, `{foo: {a: "1", b: "2"}}`, 0},
		{`{foo: {a: "1"}}`, `{foo: {b: "1"}}`, 0},
		{`{foo: {a: "1"}}`, `{foo: {a: "2"}}`, 1},
	}
	for _, tt := range tests {
		if got := Compare(s, obj(t, tt.old), obj(t, tt.new)); len(got) != tt.want {
			t.Errorf("%s -> %s: got %s, want %d violations", tt.old, tt.new, violations(got), tt.want)
		}
	}
}
