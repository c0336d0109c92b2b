package replay

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/crdtest"
	"github.com/kubectl-crdlint/kubectl-crdlint/internal/testutil"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/fieldvalidation"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/upgrade/compare"
)

// replayCRD builds a one-kind CRD (group example.org, kind Gizmo) whose
// versions are given as "name[,served][,storage]" and one schema for all
// (YAML of openAPIV3Schema), decoded and defaulted as the server stores it.
func replayCRD(t testing.TB, versions []string, schema string, extra string) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	var b strings.Builder
	b.WriteString("apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: gizmos.example.org}\nspec:\n  group: example.org\n  names: {plural: gizmos, kind: Gizmo}\n  scope: Namespaced\n" + extra + "  versions:\n")
	for _, v := range versions {
		parts := strings.Split(v, ",")
		fmt.Fprintf(&b, "  - name: %s\n    served: %t\n    storage: %t\n    schema:\n      openAPIV3Schema:\n", parts[0], slices.Contains(parts, "served"), slices.Contains(parts, "storage"))
		for _, l := range strings.Split(strings.TrimSpace(schema), "\n") {
			b.WriteString("        " + l + "\n")
		}
	}
	js, err := sigsyaml.YAMLToJSON([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	c, err := crdtest.Decode(js)
	if err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	if v := crd.Decode(js).Verdict(nil); v.Rejected(false) {
		t.Fatalf("the server would reject the test CRD: %v\n%s", v.Errors, b.String())
	}
	return c
}

// object decodes a custom resource as the server decodes JSON.
func object(t testing.TB, y string) map[string]any {
	t.Helper()
	js, err := sigsyaml.YAMLToJSON([]byte(y))
	if err != nil {
		t.Fatal(err)
	}
	var obj map[string]any
	if err := utiljson.Unmarshal(js, &obj); err != nil {
		t.Fatal(err)
	}
	return obj
}

const (
	gizmoSchema = `
type: object
properties:
  spec:
    type: object
    properties:
      size: {type: integer}
      color: {type: string, enum: [red, green, blue]}
      note: {type: string}`
	v1 = "apiVersion: example.org/v1\nkind: Gizmo\nmetadata: {name: g, namespace: lab}\n"
)

func outcomes(r *ObjectResult) []string {
	var out []string
	for _, o := range r.Outcomes {
		out = append(out, o.Rule+" "+o.Field)
	}
	slices.Sort(out)
	return out
}

func TestReplay(t *testing.T) {
	base := []string{"v1,served,storage"}
	tests := []struct {
		name         string
		oldV, newV   []string
		old, new     string // schemas
		oldX, newX   string // extra spec YAML
		obj          string
		stored       bool
		writtenIn    []string
		want         []string // rule field, sorted
		createErrors int
		updateErrors int
		pruned       []string
		validate     fieldvalidation.Directive // "": Warn
	}{
		{name: "unchanged", old: gizmoSchema, new: gizmoSchema, obj: v1 + "spec: {size: 3, color: red}"},
		{name: "field removed: data lost", old: gizmoSchema, new: strings.Replace(gizmoSchema, "      note: {type: string}", "", 1),
			obj: v1 + "spec: {note: keep}", want: []string{RuleObjectDataLost + " spec.note"}, pruned: []string{"spec.note"}},
		{name: "enum value removed: create refused, update ratcheted", old: gizmoSchema, new: strings.Replace(gizmoSchema, "red, green, blue", "red, blue", 1),
			obj: v1 + "spec: {color: green}", want: []string{RuleObjectCreateRefused + " spec.color"}, createErrors: 1},
		{name: "transition rule: update refused", old: gizmoSchema,
			new: strings.Replace(gizmoSchema, "    type: object\n    properties:", "    type: object\n    x-kubernetes-validations: [{rule: 'oldSelf.size < 10', message: too big to change}]\n    properties:", 1),
			obj: v1 + "spec: {size: 12}", want: []string{RuleObjectUpdateRefused + " spec"}, updateErrors: 1},
		{name: "version unserved", oldV: []string{"v1alpha1,served", "v1,served,storage"}, newV: []string{"v1alpha1", "v1,served,storage"}, old: gizmoSchema, new: gizmoSchema,
			obj: strings.Replace(v1, "/v1", "/v1alpha1", 1) + "spec: {size: 1}", want: []string{RuleObjectVersionUnserved + " apiVersion"}},
		{name: "stored version removed", oldV: []string{"v1alpha1,served,storage"}, newV: []string{"v1,served,storage"}, old: gizmoSchema, new: gizmoSchema,
			obj: strings.Replace(v1, "/v1", "/v1alpha1", 1) + "spec: {size: 1}", want: []string{RuleObjectStoredVersionGone + " apiVersion"}},
		{name: "OLD converts with a webhook", oldV: []string{"v1alpha1,served", "v1,served,storage"}, newV: []string{"v1alpha1,served", "v1,served,storage"}, old: gizmoSchema, new: gizmoSchema,
			oldX: "  conversion: {strategy: Webhook, webhook: {conversionReviewVersions: [v1], clientConfig: {url: 'https://conv.example.org/convert'}}}\n",
			newX: "  conversion: {strategy: Webhook, webhook: {conversionReviewVersions: [v1], clientConfig: {url: 'https://conv.example.org/convert'}}}\n",
			obj:  strings.Replace(v1, "/v1", "/v1alpha1", 1) + "spec: {size: 1}", want: []string{RuleObjectNotReplayed + " apiVersion"}},
		{name: "refused by OLD too: not a change", old: strings.Replace(gizmoSchema, "red, green, blue", "red, blue", 1), new: strings.Replace(gizmoSchema, "red, green, blue", "red", 1),
			obj: v1 + "spec: {color: green}", want: []string{RuleObjectRefusedByOld + " spec.color"}, createErrors: 1},
		{name: "a live object written in a version NEW drops", oldV: []string{"v1beta1,served", "v1,served,storage"}, newV: []string{"v1beta1", "v1,served,storage"}, old: gizmoSchema, new: gizmoSchema,
			obj: v1 + "spec: {size: 1}", stored: true, writtenIn: []string{"v1", "v1beta1"}, want: []string{RuleObjectVersionUnserved + " apiVersion"}},
		{name: "a live object keeps its server-set metadata out of the create", old: gizmoSchema, new: gizmoSchema,
			obj: "apiVersion: example.org/v1\nkind: Gizmo\nmetadata: {name: g, namespace: lab, resourceVersion: '42', uid: 0c2b5f1e-5c0e-4a34-9b0e-000000000001, generation: 3, creationTimestamp: '2024-01-02T03:04:05Z'}\nspec: {size: 3}", stored: true},
		{name: "another kind", old: gizmoSchema, new: gizmoSchema, obj: "apiVersion: example.org/v1\nkind: Gadget\nmetadata: {name: g}\n", want: []string{RuleObjectNotReplayed + " kind"}},
		// Under Strict (kubectl apply's default) a create of a manifest
		// with a field NEW does not know ends at decoding: a 400 naming
		// it, and no validation (the enum is not reached). The labels-only
		// update, a controller's, carries no field validation: not refused.
		{name: "strict: field removed: create refused for it, data lost", old: gizmoSchema, new: strings.Replace(gizmoSchema, "      note: {type: string}", "", 1),
			obj: v1 + "spec: {note: keep}", validate: fieldvalidation.Strict,
			want: []string{RuleObjectCreateRefused + " spec.note", RuleObjectDataLost + " spec.note"}, createErrors: 1, pruned: []string{"spec.note"}},
		{name: "strict: the unknown field hides NEW's other refusals, as the server's 400 does", old: gizmoSchema,
			new: strings.Replace(strings.Replace(gizmoSchema, "      note: {type: string}", "", 1), "red, green, blue", "red, blue", 1),
			obj: v1 + "spec: {note: keep, color: green}", validate: fieldvalidation.Strict,
			want: []string{RuleObjectCreateRefused + " spec.note", RuleObjectDataLost + " spec.note"}, createErrors: 1, pruned: []string{"spec.note"}},
		{name: "strict: a field OLD does not know either: refused by OLD, not a change", old: gizmoSchema, new: gizmoSchema,
			obj: v1 + "spec: {size: 1, colour: red}", validate: fieldvalidation.Strict,
			want: []string{RuleObjectRefusedByOld + " spec.colour"}, createErrors: 1},
		{name: "warn: the same object: no refusal", old: gizmoSchema, new: gizmoSchema,
			obj: v1 + "spec: {size: 1, colour: red}", validate: fieldvalidation.Warn},
		{name: "ignore: field removed: only the data lost", old: gizmoSchema, new: strings.Replace(gizmoSchema, "      note: {type: string}", "", 1),
			obj: v1 + "spec: {note: keep}", validate: fieldvalidation.Ignore, want: []string{RuleObjectDataLost + " spec.note"}, pruned: []string{"spec.note"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			oldV, newV := tt.oldV, tt.newV
			if oldV == nil {
				oldV = base
			}
			if newV == nil {
				newV = base
			}
			old, new := replayCRD(t, oldV, tt.old, tt.oldX), replayCRD(t, newV, tt.new, tt.newX)
			r := New(old, new, Options{Validate: tt.validate})
			obj := object(t, tt.obj)
			before := fmt.Sprint(obj)
			res := r.Replay(Object{Value: obj, Stored: tt.stored, WrittenIn: tt.writtenIn})
			if fmt.Sprint(obj) != before {
				t.Errorf("Replay changed the object")
			}
			if got := outcomes(res); !slices.Equal(got, tt.want) {
				t.Errorf("outcomes %q, want %q\n%+v", got, tt.want, res.Outcomes)
			}
			if len(res.CreateErrors) != tt.createErrors || len(res.UpdateErrors) != tt.updateErrors || !slices.Equal(res.Pruned, tt.pruned) {
				t.Errorf("create %q update %q pruned %q; want %d, %d errors and pruned %q", res.CreateErrors, res.UpdateErrors, res.Pruned, tt.createErrors, tt.updateErrors, tt.pruned)
			}
			for _, o := range res.Outcomes {
				if s, ok := replaySeverity[o.Rule]; !ok || s != o.Severity {
					t.Errorf("%s: severity %v, not the rule's", o.Rule, o.Severity)
				}
			}
			s := r.Summary()
			if s.Objects != 1 || s.CRD != "gizmos.example.org" {
				t.Errorf("summary %+v", s)
			}
		})
	}
}

// TestReplayJudgesCEL: a CEL change's message says what the objects said:
// which NEW refuses that OLD accepted (an object OLD's changed rule
// refused too is not counted), or none.
func TestReplayJudgesCEL(t *testing.T) {
	withRule := func(rule string) string {
		return strings.Replace(gizmoSchema, "    type: object\n    properties:", "    type: object\n    x-kubernetes-validations: [{rule: '"+rule+"'}]\n    properties:", 1)
	}
	v := []string{"v1,served,storage"}
	old := replayCRD(t, v, withRule("!has(self.size) || self.size < 10"), "")
	new := replayCRD(t, v, withRule("!has(self.size) || self.size < 5"), "")
	r := New(old, new, Options{})
	for _, y := range []string{"metadata: {name: small, namespace: lab}\nspec: {size: 1}", "metadata: {name: mid, namespace: lab}\nspec: {size: 7}"} {
		r.Replay(Object{Value: object(t, "apiVersion: example.org/v1\nkind: Gizmo\n"+y)})
	}
	var msg string
	for _, c := range r.Changes() {
		if c.Rule == compare.RuleCELRuleChanged {
			msg = c.Message
		}
	}
	want := `judged on 2 existing objects read as v1: it refuses 1 that OLD accepted: lab/mid (spec: Invalid value: failed rule: !has(self.size) || self.size < 5)`
	if !strings.HasSuffix(msg, want) || strings.Contains(msg, "unknown without objects") {
		t.Errorf("message %q, want it to end in %q", msg, want)
	}
	// Without objects the change stays "unknown".
	for _, c := range New(old, new, Options{}).Changes() {
		if c.Rule == compare.RuleCELRuleChanged && !strings.Contains(c.Message, "unknown without objects") {
			t.Errorf("without objects: %q", c.Message)
		}
	}
}

// TestReplayPresent: the objects answer the comparison's Present question, which
// makes a field required under an optional parent an error when an
// object sets the parent.
func TestReplayPresent(t *testing.T) {
	schema := func(required string) string {
		return `
type: object
properties:
  spec:
    type: object
    properties:
      tls:
        type: object
` + required + `
        properties:
          secret: {type: string}
          issuer: {type: string}`
	}
	v := []string{"v1,served,storage"}
	old, new := replayCRD(t, v, schema(""), ""), replayCRD(t, v, schema("        required: [secret]"), "")
	rules := func(r *Replayer) []string {
		var out []string
		for _, c := range r.Changes() {
			out = append(out, c.Rule)
		}
		return out
	}
	r := New(old, new, Options{})
	r.Replay(Object{Value: object(t, v1+"spec: {}")})
	if got := rules(r); !slices.Equal(got, []string{compare.RuleRequiredAddedOptional}) {
		t.Errorf("no object sets tls: %q", got)
	}
	r.Replay(Object{Value: object(t, v1+"spec: {tls: {issuer: le}}")})
	if got := rules(r); !slices.Equal(got, []string{compare.RuleRequiredAdded}) {
		t.Errorf("an object sets tls: %q", got)
	}
}

// TestReplaySelf: every corpus custom resource of a corpus CRD, replayed
// through an upgrade from that CRD to itself, breaks nothing: no error,
// nothing pruned; only objects the CRD refuses are said to be refused by
// OLD too.
func TestReplaySelf(t *testing.T) {
	byGK := map[string]*apiextensionsv1.CustomResourceDefinition{}
	for _, f := range testutil.Files(t, "crds") {
		c := crdtest.Read(t, f).CRD
		byGK[c.Spec.Group+"/"+c.Spec.Names.Kind] = c
	}
	replayers := map[string]*Replayer{}
	n, refused := 0, 0
	for _, p := range testutil.Files(t, "crs") {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range source.Parse(p, data).Documents {
			g, _ := d.GroupVersion()
			c := byGK[g+"/"+d.Object.Kind]
			if c == nil {
				continue
			}
			r := replayers[c.Name]
			if r == nil {
				r = New(c, c, Options{})
				replayers[c.Name] = r
			}
			var obj map[string]any
			if err := utiljson.Unmarshal(d.JSON, &obj); err != nil {
				continue
			}
			res := r.Replay(Object{Value: obj})
			n++
			for _, o := range res.Outcomes {
				switch {
				case o.Rule == RuleObjectRefusedByOld || o.Rule == RuleObjectNotReplayed:
					refused++
				case o.Severity == report.Error:
					t.Errorf("%s#%d (%s): %s %s: %s", p, d.Index, res.Name, o.Rule, o.Field, o.Message)
				}
			}
			if len(res.Pruned) > 0 {
				t.Errorf("%s#%d: pruned %q replaying through the same CRD", p, d.Index, res.Pruned)
			}
		}
	}
	for name, r := range replayers {
		for _, c := range r.Changes() {
			t.Errorf("%s: a change between a CRD and itself: %s", name, c.Rule)
		}
	}
	if n < testutil.AtLeast(t, 700, 500) {
		t.Fatalf("only %d corpus objects replayed", n)
	}
	t.Logf("%d corpus objects replayed through their own CRD (%d CRDs): none broken; %d refused or not replayable under it as under OLD", n, len(replayers), refused)
}

// FuzzReplay replays arbitrary objects through examples/upgrade's upgrade
// and through widget-v1 to itself: no panic, the same result twice,
// outcomes with their rules' severities, and nothing broken by an upgrade
// that changes nothing.
func FuzzReplay(f *testing.F) {
	old := crdtest.Read(f, "../../../examples/upgrade/widget-v1.yaml").CRD
	new := crdtest.Read(f, "../../../examples/upgrade/widget-v2.yaml").CRD
	data, err := os.ReadFile("../../../examples/upgrade/objects.yaml")
	if err != nil {
		f.Fatal(err)
	}
	for _, d := range source.Parse("objects.yaml", data).Documents {
		f.Add(d.JSON, false)
	}
	f.Add([]byte(`{"apiVersion":"example.org/v1","kind":"Widget","metadata":{"name":"x","labels":{"a":"b"},"resourceVersion":"9"},"spec":{"size":"tiny","tls":null,"replicas":1.5},"status":{"readyReplicas":2}}`), true)
	f.Add([]byte(`{"apiVersion":"example.org/v1","kind":"Widget","metadata":"oops"}`), false)
	up, same := New(old, new, Options{}), New(old, old, Options{})
	f.Fuzz(func(t *testing.T, js []byte, stored bool) {
		var obj map[string]any
		if err := utiljson.Unmarshal(js, &obj); err != nil || obj == nil {
			return
		}
		o := Object{Value: obj, Stored: stored, WrittenIn: []string{"v1beta1"}}
		a, b := up.Replay(o), up.Replay(o)
		if fmt.Sprint(a) != fmt.Sprint(b) {
			t.Fatalf("two replays differ:\n%+v\n%+v", a, b)
		}
		for _, oc := range a.Outcomes {
			if s, ok := replaySeverity[oc.Rule]; !ok || s != oc.Severity {
				t.Fatalf("%s: severity %v, not the rule's", oc.Rule, oc.Severity)
			}
		}
		o.WrittenIn = nil
		for _, oc := range same.Replay(o).Outcomes {
			if oc.Severity == report.Error {
				t.Fatalf("widget-v1 to itself: %s %s: %s", oc.Rule, oc.Field, oc.Message)
			}
		}
	})
}

// TestReplayDottedKeyLost: the server's pruned paths join keys with dots,
// so a pruned key that holds a dot is still stored data lost.
func TestReplayDottedKeyLost(t *testing.T) {
	schema := func(preserve string) string {
		return `
type: object
properties:
  spec:
    type: object
    properties:
      settings:
        type: object
` + preserve + `
        properties:
          a: {type: string}`
	}
	v := []string{"v1,served,storage"}
	r := New(replayCRD(t, v, schema("        x-kubernetes-preserve-unknown-fields: true"), ""), replayCRD(t, v, schema(""), ""), Options{})
	res := r.Replay(Object{Value: object(t, v1+"spec: {settings: {a: x, example.com/team: web}}")})
	if want := []string{"spec.settings.example.com/team"}; !slices.Equal(res.Pruned, want) {
		t.Errorf("pruned %q, want %q", res.Pruned, want)
	}
}

// TestReplayOldNotDefaultedInRequestVersion: the server defaults an
// object read from storage in the version it is stored in only; the
// update's new object is defaulted in the request version. A default only
// the request version has changes spec, so spec's rule is not ratcheted.
func TestReplayOldNotDefaultedInRequestVersion(t *testing.T) {
	v1Schema := gizmoSchema
	v2Schema := strings.Replace(gizmoSchema, "    type: object\n    properties:", "    type: object\n    x-kubernetes-validations: [{rule: '!has(self.size) || self.size < 5', message: too big}]\n    properties:", 1)
	v2Schema = strings.Replace(v2Schema, "note: {type: string}", "note: {type: string, default: hi}", 1)
	crdOf := func(v2 string) *apiextensionsv1.CustomResourceDefinition {
		c := replayCRD(t, []string{"v1,served,storage", "v2,served"}, v1Schema, "")
		c.Spec.Versions[1].Schema = replayCRD(t, []string{"v2,served,storage"}, v2, "").Spec.Versions[0].Schema
		return c
	}
	r := New(crdOf(v1Schema), crdOf(v2Schema), Options{})
	res := r.Replay(Object{Value: object(t, strings.Replace(v1, "/v1", "/v2", 1)+"spec: {size: 7}")})
	if len(res.UpdateErrors) != 1 || res.UpdateVersion != "v2" {
		t.Errorf("update in %s: errors %q, want spec's rule (not ratcheted: the new object's spec has the default)", res.UpdateVersion, res.UpdateErrors)
	}
}
