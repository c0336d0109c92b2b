package replay

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/fieldvalidation"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/upgrade/compare"
)

// TestReplayEvidence: a tightening that objects were judged on and none
// of them breaks is a warning saying how many were judged; an object
// that breaks it, or no object judged in its version, keeps the error;
// a transition rule stays an error whatever the objects hold.
func TestReplayEvidence(t *testing.T) {
	withSpec := func(schema, extra string) string {
		return strings.Replace(schema, "    type: object\n    properties:", "    type: object\n"+extra+"    properties:", 1)
	}
	withList := gizmoSchema + "\n      tags: {type: array, items: {type: string}}"
	withStatus := gizmoSchema + "\n  status:\n    type: object\n    properties:\n      phase: {type: string}\n      ready: {type: boolean}"
	withNullable := strings.Replace(gizmoSchema, "note: {type: string}", "note: {type: string, nullable: true}", 1)
	withRoot := func(rule string) string {
		return "x-kubernetes-validations: [{rule: '" + rule + "'}]\n" + strings.TrimPrefix(gizmoSchema, "\n")
	}
	obj := func(name, spec string) string {
		return "apiVersion: example.org/v1\nkind: Gizmo\nmetadata: {name: " + name + ", namespace: lab}\nspec: " + spec
	}
	one := []string{"v1,served,storage"}
	two := []string{"v1alpha1,served", "v1,served,storage"}
	type want struct {
		rule, version string
		sev           report.Severity
		msg           string // a part of the message
	}
	tests := []struct {
		name     string
		versions []string
		old, new string
		objects  []string
		validate fieldvalidation.Directive
		want     []want
	}{
		// Under strict the 400 for an unknown field hides the object's
		// other errors: the bound still breaks it once the field is fixed.
		{name: "strict: an unknown field hides the break", old: gizmoSchema, new: strings.Replace(strings.Replace(gizmoSchema, "size: {type: integer}", "size: {type: integer, maximum: 5}", 1), "\n      note: {type: string}", "", 1),
			objects: []string{obj("a", "{size: 9, note: hi}")}, validate: fieldvalidation.Strict,
			want: []want{
				{compare.RuleFieldRemoved, "v1", report.Error, `1 of them may break it (see their findings): lab/a`},
				{compare.RuleBoundTightened, "v1", report.Error, `judged on 1 existing object read as v1: 1 of them may break it (see their findings): lab/a`}}},
		{name: "no objects: an error, unknown", old: gizmoSchema, new: strings.Replace(gizmoSchema, "red, green, blue", "red, blue", 1),
			want: []want{{compare.RuleEnumRemoved, "v1", report.Error, `enum value "green" removed: objects holding it are refused`}}},
		{name: "enum narrowed, no object breaks it", old: gizmoSchema, new: strings.Replace(gizmoSchema, "red, green, blue", "red, blue", 1),
			objects: []string{obj("a", "{color: red}"), obj("b", "{size: 3}")},
			want:    []want{{compare.RuleEnumRemoved, "v1", report.Warning, `refused; judged on 2 existing objects read as v1: none of them breaks it (1 of them sets spec.color)`}}},
		{name: "enum narrowed, an object breaks it", old: gizmoSchema, new: strings.Replace(gizmoSchema, "red, green, blue", "red, blue", 1),
			objects: []string{obj("a", "{color: red}"), obj("b", "{color: green}")},
			want:    []want{{compare.RuleEnumRemoved, "v1", report.Error, `judged on 2 existing objects read as v1: 1 of them may break it (see their findings): lab/b`}}},
		{name: "bound tightened on a field no object sets", old: gizmoSchema, new: strings.Replace(gizmoSchema, "size: {type: integer}", "size: {type: integer, maximum: 5}", 1),
			objects: []string{obj("a", "{color: red}")},
			want:    []want{{compare.RuleBoundTightened, "v1", report.Warning, `judged on 1 existing object read as v1: none of them breaks it (none of them sets spec.size)`}}},
		{name: "list type set, no duplicates", old: withList, new: strings.Replace(withList, "tags: {type: array,", "tags: {type: array, x-kubernetes-list-type: set,", 1),
			objects: []string{obj("a", "{tags: [x, w]}"), obj("b", "{tags: [z]}")},
			want:    []want{{compare.RuleListTypeChanged, "v1", report.Warning, `none of them breaks it (all of them set spec.tags)`}}},
		{name: "list type set, a duplicate", old: withList, new: strings.Replace(withList, "tags: {type: array,", "tags: {type: array, x-kubernetes-list-type: set,", 1),
			objects: []string{obj("a", "{tags: [x, w]}"), obj("b", "{tags: [z, z]}")},
			want:    []want{{compare.RuleListTypeChanged, "v1", report.Error, `1 of them may break it (see their findings): lab/b`}}},
		// A refusal at another field is not this change's doing.
		{name: "another change's refusal", old: withList,
			new:     strings.Replace(strings.Replace(withList, "tags: {type: array,", "tags: {type: array, x-kubernetes-list-type: set,", 1), "red, green, blue", "red, blue", 1),
			objects: []string{obj("a", "{tags: [x], color: green}")},
			want: []want{
				{compare.RuleListTypeChanged, "v1", report.Warning, `none of them breaks it (1 of them sets spec.tags)`},
				{compare.RuleEnumRemoved, "v1", report.Error, `1 of them may break it (see their findings): lab/a`}}},
		// A refusal a judged CEL rule explains (a rule on the root has no
		// field) is that rule's, not another change's.
		{name: "a CEL rule's refusal", old: gizmoSchema,
			new:     strings.Replace(withRoot("has(self.spec.color)"), "size: {type: integer}", "size: {type: integer, maximum: 100}", 1),
			objects: []string{obj("a", "{size: 1}")},
			want: []want{
				{compare.RuleCELRuleAdded, "v1", report.Error, `it refuses 1 that OLD accepted: lab/a (<nil>: Invalid value: failed rule: has(self.spec.color))`},
				{compare.RuleBoundTightened, "v1", report.Warning, `none of them breaks it (1 of them sets spec.size)`}}},
		// Any other refusal without a field (a junctor's) may be any
		// change's: every change of the version keeps its error.
		{name: "a refusal without a field", old: gizmoSchema,
			new: withSpec(strings.Replace(gizmoSchema, "size: {type: integer}", "size: {type: integer, maximum: 100}", 1),
				"    oneOf: [{required: [color]}, {required: [size]}]\n"),
			objects: []string{obj("a", "{size: 1, color: red}")},
			want: []want{
				{compare.RuleJunctorChanged, "v1", report.Error, `1 of them may break it (see their findings): lab/a`},
				{compare.RuleBoundTightened, "v1", report.Error, `1 of them may break it (see their findings): lab/a`}}},
		{name: "CEL rule added, none refuses", old: gizmoSchema, new: withSpec(gizmoSchema, "    x-kubernetes-validations: [{rule: '!has(self.size) || self.size < 10'}]\n"),
			objects: []string{obj("a", "{size: 3}"), obj("b", "{color: red}")},
			want:    []want{{compare.RuleCELRuleAdded, "v1", report.Warning, `objects that break it are refused; judged on 2 existing objects read as v1: none of them breaks it`}}},
		{name: "transition rule: an error whatever the objects", old: gizmoSchema, new: withSpec(gizmoSchema, "    x-kubernetes-validations: [{rule: 'self.size == oldSelf.size'}]\n"),
			objects: []string{obj("a", "{size: 3}")},
			want:    []want{{compare.RuleTransitionRuleAdded, "v1", report.Error, `it refuses the labels-only update of none of them; the updates it is written to refuse are refused whatever the objects hold`}}},
		{name: "field removed, stored by none", old: gizmoSchema, new: strings.Replace(gizmoSchema, "      note: {type: string}", "", 1),
			objects: []string{obj("a", "{size: 3}")},
			want:    []want{{compare.RuleFieldRemoved, "v1", report.Warning, `none of them breaks it (none of them sets spec.note)`}}},
		{name: "field removed, stored by one", old: gizmoSchema, new: strings.Replace(gizmoSchema, "      note: {type: string}", "", 1),
			objects: []string{obj("a", "{size: 3}"), obj("b", "{note: hi}")},
			want:    []want{{compare.RuleFieldRemoved, "v1", report.Error, `1 of them may break it (see their findings): lab/b`}}},
		{name: "nullable removed, no null", old: withNullable, new: gizmoSchema,
			objects: []string{obj("a", "{note: hi}")},
			want:    []want{{compare.RuleNullableRemoved, "v1", report.Warning, `none of them breaks it (1 of them sets spec.note)`}}},
		{name: "nullable removed, a null stored", old: withNullable, new: gizmoSchema,
			objects: []string{obj("a", "{note: null}")},
			want:    []want{{compare.RuleNullableRemoved, "v1", report.Error, `1 of them may break it (see their findings): lab/a`}}},
		// Objects judge the version they are read in: v1alpha1's change
		// is judged, v1's is not.
		{name: "objects of another version", versions: two, old: gizmoSchema, new: strings.Replace(gizmoSchema, "red, green, blue", "red, blue", 1),
			objects: []string{strings.Replace(obj("a", "{color: red}"), "/v1\n", "/v1alpha1\n", 1)},
			want: []want{
				{compare.RuleEnumRemoved, "v1", report.Error, `; not judged: no object is read as v1 and accepted by OLD (1 object replayed)`},
				{compare.RuleEnumRemoved, "v1alpha1", report.Warning, `judged on 1 existing object read as v1alpha1: none of them breaks it`}}},
		// Status is judged only by objects that store one: manifests
		// tell nothing of what controllers write there.
		{name: "status judged by objects with a status", old: withStatus, new: strings.Replace(withStatus, "      phase: {type: string}\n", "", 1),
			objects: []string{obj("a", "{size: 1}")},
			want:    []want{{compare.RuleFieldRemoved, "v1", report.Error, `not judged: no object read as v1 and accepted by OLD stores a status (1 object replayed; manifests have none, --live reads the cluster's)`}}},
		{name: "status judged by an object that stores one", old: withStatus, new: strings.Replace(withStatus, "      phase: {type: string}\n", "", 1),
			objects: []string{obj("a", "{size: 1}"), obj("b", "{size: 2}\nstatus: {ready: true}")},
			want:    []want{{compare.RuleFieldRemoved, "v1", report.Warning, `judged on 1 existing object read as v1: none of them breaks it (none of them sets status.phase)`}}},
		{name: "status judged broken", old: withStatus, new: strings.Replace(withStatus, "      phase: {type: string}\n", "", 1),
			objects: []string{obj("b", "{size: 2}\nstatus: {phase: Running}")},
			want:    []want{{compare.RuleFieldRemoved, "v1", report.Error, `judged on 1 existing object read as v1: 1 of them may break it (see their findings): lab/b`}}},
		// A manifest OLD refuses cannot exist as written: it judges nothing.
		{name: "an object OLD refuses judges nothing", old: strings.Replace(gizmoSchema, "red, green, blue", "red, green", 1), new: strings.Replace(gizmoSchema, "red, green, blue", "red", 1),
			objects: []string{obj("a", "{color: blue}")},
			want:    []want{{compare.RuleEnumRemoved, "v1", report.Error, `not judged: no object is read as v1 and accepted by OLD (1 object replayed)`}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vs := tt.versions
			if vs == nil {
				vs = one
			}
			r := New(replayCRD(t, vs, tt.old, ""), replayCRD(t, vs, tt.new, ""), Options{Validate: tt.validate})
			for _, o := range tt.objects {
				r.Replay(Object{Value: object(t, o)})
			}
			cs := r.Changes()
			var all []string
			for _, c := range cs {
				all = append(all, fmt.Sprintf("%s %s %s: %s", c.Severity, c.Rule, c.Version, c.Message))
			}
			for _, w := range tt.want {
				found := false
				for _, c := range cs {
					if c.Rule == w.rule && c.Version == w.version {
						found = true
						if c.Severity != w.sev || !strings.Contains(c.Message, w.msg) {
							t.Errorf("%s %s: got %s %q; want %s with %q", w.rule, w.version, c.Severity, c.Message, w.sev, w.msg)
						}
					}
				}
				if !found {
					t.Errorf("no %s in %s; got:\n%s", w.rule, w.version, strings.Join(all, "\n"))
				}
			}
			for _, c := range cs {
				if !judgedRules[c.Rule] && c.Severity != ruleSeverity(c.Rule) {
					t.Errorf("%s: severity %s, not the rule's, though objects do not judge it", c.Rule, c.Severity)
				}
			}
		})
	}
}

// TestUnder: an object's field is at or below a change's field.
func TestUnder(t *testing.T) {
	for _, tt := range []struct {
		field string
		p     compare.DataPath
		want  bool
	}{
		{"spec.color", compare.DataPath{"spec", "color"}, true},
		{"spec.color", compare.DataPath{"spec"}, true},
		{"spec", compare.DataPath{"spec", "color"}, false},
		{"spec.colour", compare.DataPath{"spec", "color"}, false},
		{"spec.tags[1]", compare.DataPath{"spec", "tags"}, true},
		{"spec.tags[1]", compare.DataPath{"spec", "tags", compare.Any}, true},
		{"spec.ports[0].name", compare.DataPath{"spec", "ports", compare.Any, "name"}, true},
		{"spec.ports[0].port", compare.DataPath{"spec", "ports", compare.Any, "name"}, false},
		{"spec.labels[app]", compare.DataPath{"spec", "labels", compare.Any}, true},
		// Pruned paths join a key's dots: the key spans segments.
		{"spec.map.example.com/team.value", compare.DataPath{"spec", "map", compare.Any, "value"}, true},
		{"spec.map.example.com/team.other", compare.DataPath{"spec", "map", compare.Any, "value"}, false},
		// A property whose name holds dots.
		{"spec.a.b.c", compare.DataPath{"spec", "a.b", "c"}, true},
		{"spec.a.bc", compare.DataPath{"spec", "a.b"}, false},
		{"", compare.DataPath{"spec"}, false},
		{"spec.x", nil, true},
	} {
		if got := under(tt.field, tt.p); got != tt.want {
			t.Errorf("under(%q, %q) = %t, want %t", tt.field, tt.p, got, tt.want)
		}
	}
}

// TestRefusedByOldNamesCause: an object OLD refuses too is reported with
// the errors that refuse it, not the server's note that CEL rules were
// skipped because of them (which sorts first).
func TestRefusedByOldNamesCause(t *testing.T) {
	schema := strings.Replace(gizmoSchema, "    type: object\n    properties:", "    type: object\n    x-kubernetes-validations: [{rule: '!has(self.size) || self.size < 10'}]\n    properties:", 1)
	v := []string{"v1,served,storage"}
	r := New(replayCRD(t, v, schema, ""), replayCRD(t, v, schema, ""), Options{})
	res := r.Replay(Object{Value: object(t, v1+"spec: {color: purple, size: hello, note: 1, extra: x}")})
	if len(res.Outcomes) != 1 || res.Outcomes[0].Rule != RuleObjectRefusedByOld {
		t.Fatalf("outcomes %+v, want one %s", res.Outcomes, RuleObjectRefusedByOld)
	}
	o := res.Outcomes[0]
	want := `OLD refuses a create of this object too (spec.color: Unsupported value: "purple": supported values: "red", "green", "blue"; ` +
		`spec.note: Invalid value: "integer": spec.note in body must be of type string: "integer"; ` +
		`spec.size: Invalid value: "string": spec.size in body must be of type integer: "string"): NEW's refusals of its create are not reported`
	if o.Message != want || o.Field != "spec.color" {
		t.Errorf("got %s %q,\nwant spec.color %q", o.Field, o.Message, want)
	}
	if !slices.ContainsFunc(res.CreateErrors, isCELSkipped) {
		t.Errorf("the server's verdict %q lacks its note: the test no longer shows it is left out", res.CreateErrors)
	}
}

// TestJudgedMessageOrder: objects are replayed in parallel, in any order;
// the message names the same objects (the first in order) whatever the
// order they were replayed in.
func TestJudgedMessageOrder(t *testing.T) {
	v := []string{"v1,served,storage"}
	old, new := replayCRD(t, v, gizmoSchema, ""), replayCRD(t, v, strings.Replace(gizmoSchema, "red, green, blue", "red, blue", 1), "")
	var objs []map[string]any
	for _, n := range []string{"g", "c", "e", "a", "f", "b", "d"} {
		objs = append(objs, object(t, "apiVersion: example.org/v1\nkind: Gizmo\nmetadata: {name: "+n+", namespace: lab}\nspec: {color: green}"))
	}
	message := func(order []int) string {
		r := New(old, new, Options{})
		for _, i := range order {
			r.Replay(Object{Value: objs[i]})
		}
		for _, c := range r.Changes() {
			if c.Rule == compare.RuleEnumRemoved {
				return c.Message
			}
		}
		return ""
	}
	want := `judged on 7 existing objects read as v1: 7 of them may break it (see their findings): lab/a; lab/b; lab/c; lab/d; lab/e; and 2 more`
	for _, order := range [][]int{{0, 1, 2, 3, 4, 5, 6}, {6, 5, 4, 3, 2, 1, 0}, {3, 0, 6, 1, 5, 2, 4}} {
		if got := message(order); !strings.HasSuffix(got, want) {
			t.Errorf("order %v: %q, want it to end in %q", order, got, want)
		}
	}
}

// ruleSeverity is a comparison rule's severity in compare.Rules.
func ruleSeverity(id string) report.Severity {
	for _, r := range compare.Rules {
		if r.ID == id {
			return r.Severity
		}
	}
	return 0
}
