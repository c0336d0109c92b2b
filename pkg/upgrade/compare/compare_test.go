package compare

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/crdtest"
)

// ver renders one version of a test CRD. spec is the YAML of the spec
// property's schema (indented by two spaces per level, no leading
// indentation); extra holds version fields such as "served: false".
func ver(name string, storage bool, spec string, extra ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "- name: %s\n  served: true\n  storage: %t\n", name, storage)
	for _, e := range extra {
		b.WriteString("  " + e + "\n")
	}
	b.WriteString("  schema:\n    openAPIV3Schema:\n      type: object\n      properties:\n        spec:\n")
	for _, l := range strings.Split(strings.TrimSpace(spec), "\n") {
		b.WriteString("          " + l + "\n")
	}
	return b.String()
}

// mkCRD decodes a test CRD made of versions and, optionally, more YAML
// under spec (conversion) and a status.
func mkCRD(t *testing.T, specExtra, status string, versions ...string) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	var b strings.Builder
	b.WriteString("apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.example.com\n")
	b.WriteString("spec:\n  group: example.com\n  names: {kind: Widget, plural: widgets}\n  scope: Namespaced\n")
	if specExtra != "" {
		b.WriteString("  " + strings.ReplaceAll(strings.TrimSpace(specExtra), "\n", "\n  ") + "\n")
	}
	b.WriteString("  versions:\n")
	for _, v := range versions {
		b.WriteString("  " + strings.ReplaceAll(strings.TrimSuffix(v, "\n"), "\n", "\n  ") + "\n")
	}
	if status != "" {
		b.WriteString(status + "\n")
	}
	js, err := yaml.YAMLToJSON([]byte(b.String()))
	if err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	crd, err := crdtest.Decode(js)
	if err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	return crd
}

// brief renders changes as "rule path" lines, paths shortened, for
// comparisons in tables.
func brief(cs []Change) []string {
	out := make([]string, 0, len(cs))
	for _, c := range cs {
		p := strings.NewReplacer(
			".schema.openAPIV3Schema.properties[spec]", "/spec",
			"spec.versions[", "v[",
		).Replace(c.Path)
		s := strings.TrimPrefix(c.Rule, "upgrade-") + " " + p
		if c.InOld {
			s += " (old)"
		}
		out = append(out, s)
	}
	return out
}

const (
	sizeSpec = `
type: object
properties:
  size: {type: string}`
	colorSpec = `
type: object
properties:
  size: {type: string}
  color: {type: string}`
	webhook = `
conversion:
  strategy: Webhook
  webhook:
    conversionReviewVersions: [v1]
    clientConfig: {url: "https://example.com/convert"}`
)

func TestCompare(t *testing.T) {
	tests := []struct {
		name     string
		old, new func(t *testing.T) *apiextensionsv1.CustomResourceDefinition
		opts     Options
		want     []string
	}{{
		name: "served version removed, stored version taken from the storage flag",
		old: func(t *testing.T) *apiextensionsv1.CustomResourceDefinition {
			return mkCRD(t, "", "", ver("v1", true, sizeSpec), ver("v1beta1", false, sizeSpec))
		},
		new: func(t *testing.T) *apiextensionsv1.CustomResourceDefinition {
			return mkCRD(t, "", "", ver("v1", true, sizeSpec))
		},
		want: []string{"version-removed v[1] (old)"},
	}, {
		name: "Options.StoredVersions overrides the status",
		old: func(t *testing.T) *apiextensionsv1.CustomResourceDefinition {
			return mkCRD(t, "", "status: {storedVersions: [v1]}", ver("v1", true, sizeSpec), ver("v1beta1", false, sizeSpec))
		},
		new: func(t *testing.T) *apiextensionsv1.CustomResourceDefinition {
			return mkCRD(t, "", "", ver("v1", true, sizeSpec))
		},
		opts: Options{StoredVersions: []string{"v1", "v1beta1"}},
		want: []string{"stored-version-removed v[1] (old)"},
	}, {
		name: "a version neither served nor stored goes silently",
		old: func(t *testing.T) *apiextensionsv1.CustomResourceDefinition {
			return mkCRD(t, "", "", ver("v1", true, sizeSpec), ver("v1beta1", false, sizeSpec, "served: false"))
		},
		new: func(t *testing.T) *apiextensionsv1.CustomResourceDefinition {
			return mkCRD(t, "", "", ver("v1", true, sizeSpec))
		},
	}, {
		name: "storage moves under a webhook: schemas are the webhook's business",
		old: func(t *testing.T) *apiextensionsv1.CustomResourceDefinition {
			return mkCRD(t, webhook, "", ver("v1alpha1", true, colorSpec))
		},
		new: func(t *testing.T) *apiextensionsv1.CustomResourceDefinition {
			return mkCRD(t, webhook, "", ver("v1alpha1", false, colorSpec), ver("v1", true, sizeSpec))
		},
		want: []string{"storage-version-changed v[1].storage"},
	}, {
		name: "storage moves under None: OLD's storage schema against NEW's",
		old: func(t *testing.T) *apiextensionsv1.CustomResourceDefinition {
			return mkCRD(t, "", "", ver("v1alpha1", true, colorSpec))
		},
		new: func(t *testing.T) *apiextensionsv1.CustomResourceDefinition {
			return mkCRD(t, "", "", ver("v1alpha1", false, colorSpec), ver("v1", true, sizeSpec))
		},
		want: []string{"field-removed v[0]/spec.properties[color] (old)", "storage-version-changed v[1].storage"},
	}, {
		name: "storage pair: a difference OLD already had between the versions is not the upgrade's",
		old: func(t *testing.T) *apiextensionsv1.CustomResourceDefinition {
			return mkCRD(t, "", "", ver("v1alpha1", true, colorSpec), ver("v1", false, sizeSpec))
		},
		new: func(t *testing.T) *apiextensionsv1.CustomResourceDefinition {
			return mkCRD(t, "", "", ver("v1alpha1", false, colorSpec), ver("v1", true, sizeSpec))
		},
		want: []string{"storage-version-changed v[1].storage"},
	}, {
		name: "storage pair: what the same-name comparison reported is not repeated",
		old: func(t *testing.T) *apiextensionsv1.CustomResourceDefinition {
			return mkCRD(t, "", "", ver("v1alpha1", true, colorSpec), ver("v1", false, colorSpec))
		},
		new: func(t *testing.T) *apiextensionsv1.CustomResourceDefinition {
			return mkCRD(t, "", "", ver("v1alpha1", false, colorSpec), ver("v1", true, sizeSpec))
		},
		want: []string{"field-removed v[1]/spec.properties[color] (old)", "storage-version-changed v[1].storage"},
	}, {
		name: "webhook to None with one version left: nothing is converted anyway",
		old: func(t *testing.T) *apiextensionsv1.CustomResourceDefinition {
			return mkCRD(t, webhook, "", ver("v1", true, sizeSpec))
		},
		new: func(t *testing.T) *apiextensionsv1.CustomResourceDefinition {
			return mkCRD(t, "", "", ver("v1", true, sizeSpec))
		},
	}, {
		name: "loosenings are no change",
		old: func(t *testing.T) *apiextensionsv1.CustomResourceDefinition {
			return mkCRD(t, "", "", ver("v1", true, `
type: object
required: [size]
properties:
  size: {type: string, enum: [a, b], pattern: '^[a-z]$', maxLength: 1, format: email, minLength: 1}
  count: {type: integer, minimum: 1, maximum: 5, exclusiveMaximum: true, multipleOf: 2}
  tags: {type: array, items: {type: string}, x-kubernetes-list-type: set, maxItems: 3}
  any:
    not: {required: [x]}`))
		},
		new: func(t *testing.T) *apiextensionsv1.CustomResourceDefinition {
			return mkCRD(t, "", "", ver("v1", true, `
type: object
properties:
  size: {type: string}
  count: {type: integer, minimum: 0, maximum: 5, multipleOf: 1}
  tags: {type: array, items: {type: string}, x-kubernetes-list-type: set}
  any: {}`))
		},
	}, {
		name: "int-or-string where any value was allowed is a tightening",
		old: func(t *testing.T) *apiextensionsv1.CustomResourceDefinition {
			return mkCRD(t, "", "", ver("v1", true, `
type: object
properties:
  port: {x-kubernetes-preserve-unknown-fields: true}`))
		},
		new: func(t *testing.T) *apiextensionsv1.CustomResourceDefinition {
			return mkCRD(t, "", "", ver("v1", true, `
type: object
properties:
  port: {x-kubernetes-int-or-string: true}`))
		},
		want: []string{"type-changed v[0]/spec.properties[port].x-kubernetes-int-or-string"},
	}, {
		name: "a free-form field given a type loses its unknown fields too",
		old: func(t *testing.T) *apiextensionsv1.CustomResourceDefinition {
			return mkCRD(t, "", "", ver("v1", true, `
type: object
properties:
  config: {x-kubernetes-preserve-unknown-fields: true}`))
		},
		new: func(t *testing.T) *apiextensionsv1.CustomResourceDefinition {
			return mkCRD(t, "", "", ver("v1", true, `
type: object
properties:
  config: {type: object, properties: {debug: {type: boolean}}}`))
		},
		want: []string{
			"preserve-unknown-removed v[0]/spec.properties[config].x-kubernetes-preserve-unknown-fields (old)",
			"type-changed v[0]/spec.properties[config].type",
		},
	}, {
		name: "required: under list items only when the list must have items",
		old: func(t *testing.T) *apiextensionsv1.CustomResourceDefinition {
			return mkCRD(t, "", "", ver("v1", true, `
type: object
required: [ports, hosts]
properties:
  ports:
    type: array
    minItems: 1
    items: {type: object, properties: {name: {type: string}}}
  hosts:
    type: array
    items: {type: object, properties: {name: {type: string}}}`))
		},
		new: func(t *testing.T) *apiextensionsv1.CustomResourceDefinition {
			return mkCRD(t, "", "", ver("v1", true, `
type: object
required: [ports, hosts]
properties:
  ports:
    type: array
    minItems: 1
    items: {type: object, required: [name], properties: {name: {type: string}}}
  hosts:
    type: array
    items: {type: object, required: [name], properties: {name: {type: string}}}`))
		},
		want: []string{
			"required-added-optional-parent v[0]/spec.properties[hosts].items.required[0]",
			"required-added v[0]/spec.properties[ports].items.required[0]",
		},
	}, {
		name: "required: status is not always there, spec is",
		old: func(t *testing.T) *apiextensionsv1.CustomResourceDefinition {
			return mkCRD(t, "", "", ver("v1", true, sizeSpec)+`        status:
          type: object
          properties:
            phase: {type: string}
`)
		},
		new: func(t *testing.T) *apiextensionsv1.CustomResourceDefinition {
			return mkCRD(t, "", "", ver("v1", true, sizeSpec+"\nrequired: [size]")+`        status:
          type: object
          required: [phase]
          properties:
            phase: {type: string}
`)
		},
		want: []string{
			"required-added-optional-parent v[0].schema.openAPIV3Schema.properties[status].required[0]",
			"required-added v[0]/spec.required[0]",
		},
	}, {
		name: "metadata of an embedded resource is kept whatever its schema says",
		old: func(t *testing.T) *apiextensionsv1.CustomResourceDefinition {
			return mkCRD(t, "", "", ver("v1", true, `
type: object
properties:
  template:
    type: object
    x-kubernetes-embedded-resource: true
    properties:
      metadata: {type: object, properties: {labels: {type: object, additionalProperties: {type: string}}}}
      spec: {type: object, x-kubernetes-preserve-unknown-fields: true}`))
		},
		new: func(t *testing.T) *apiextensionsv1.CustomResourceDefinition {
			return mkCRD(t, "", "", ver("v1", true, `
type: object
properties:
  template:
    type: object
    x-kubernetes-embedded-resource: true
    properties:
      spec: {type: object, x-kubernetes-preserve-unknown-fields: true}`))
		},
	}, {
		name: "optionalOldSelf turned on: the transition rule runs on creates",
		old: func(t *testing.T) *apiextensionsv1.CustomResourceDefinition {
			return mkCRD(t, "", "", ver("v1", true, sizeSpec+`
x-kubernetes-validations:
- rule: "self.size == oldSelf.size"`))
		},
		new: func(t *testing.T) *apiextensionsv1.CustomResourceDefinition {
			return mkCRD(t, "", "", ver("v1", true, sizeSpec+`
x-kubernetes-validations:
- rule: "self.size == oldSelf.size"
  optionalOldSelf: true
  message: size is immutable`))
		},
		want: []string{"cel-rule-changed v[0]/spec.x-kubernetes-validations[0].rule"},
	}, {
		// rook's CephCluster spec.network.provider, v1.15.0 to v1.20: an
		// alternative added to a transition rule accepts more.
		name: "a rule given alternatives loosens; one changed otherwise does not",
		old: func(t *testing.T) *apiextensionsv1.CustomResourceDefinition {
			return mkCRD(t, "", "", ver("v1", true, `
type: object
properties:
  provider:
    type: string
    x-kubernetes-validations:
    - rule: "self == '' || self == oldSelf"
  host:
    type: string
    x-kubernetes-validations:
    - rule: "self == '' || self == oldSelf"`))
		},
		new: func(t *testing.T) *apiextensionsv1.CustomResourceDefinition {
			return mkCRD(t, "", "", ver("v1", true, `
type: object
properties:
  provider:
    type: string
    x-kubernetes-validations:
    - rule: "self == '' || oldSelf == '' || self == oldSelf"
  host:
    type: string
    x-kubernetes-validations:
    - rule: "self == oldSelf || self == 'x'"`))
		},
		want: []string{"cel-rule-changed v[0]/spec.properties[host].x-kubernetes-validations[0].rule"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := brief(Revisions(tt.old(t), tt.new(t), tt.opts))
			slices.Sort(got)
			want := slices.Clone(tt.want)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("got  %q\nwant %q", got, want)
			}
		})
	}
}

func TestCompareNil(t *testing.T) {
	crd := mkCRD(t, "", "", ver("v1", true, sizeSpec))
	empty := &apiextensionsv1.CustomResourceDefinition{}
	for _, pair := range [][2]*apiextensionsv1.CustomResourceDefinition{{nil, crd}, {crd, nil}, {nil, nil}} {
		if got := Revisions(pair[0], pair[1], Options{}); got != nil {
			t.Errorf("Revisions with nil: %v", got)
		}
	}
	// A CRD with nothing in it: every version of the other is removed or
	// added; nothing panics.
	if got := brief(Revisions(crd, empty, Options{})); !slices.Equal(got, []string{"kind-changed spec.names.kind", "names-changed spec.names.listKind", "scope-changed spec.scope", "stored-version-removed v[0] (old)"}) {
		t.Errorf("got %q", got)
	}
	if got := brief(Revisions(empty, crd, Options{})); !slices.Equal(got, []string{"kind-changed spec.names.kind", "scope-changed spec.scope"}) {
		t.Errorf("got %q", got)
	}
}

// TestPresent checks what Present is asked and that its answer decides
// between the two required rules.
func TestPresent(t *testing.T) {
	spec := func(required string) string {
		return `
type: object
properties:
  tls:
    type: object` + required + `
    properties:
      secretName: {type: string}`
	}
	old := mkCRD(t, "", "", ver("v1beta1", true, spec("")))
	new := mkCRD(t, "", "", ver("v1beta1", true, spec("\n    required: [secretName]")))
	for _, answer := range []bool{false, true} {
		var asked []string
		opts := Options{Present: func(version string, p DataPath) bool {
			asked = append(asked, version+" "+p.String())
			return answer
		}}
		cs := Revisions(old, new, opts)
		if len(cs) != 1 {
			t.Fatalf("got %d changes, want 1", len(cs))
		}
		want := RuleRequiredAddedOptional
		if answer {
			want = RuleRequiredAdded
		}
		if cs[0].Rule != want || cs[0].Field.String() != "spec.tls.secretName" {
			t.Errorf("Present %t: got %s at %s, want %s at spec.tls.secretName", answer, cs[0].Rule, cs[0].Field, want)
		}
		if !slices.Equal(asked, []string{"v1beta1 spec.tls"}) {
			t.Errorf("Present asked %q, want the parent once", asked)
		}
	}
}

func TestHas(t *testing.T) {
	obj := map[string]any{
		"spec": map[string]any{
			"ports":  []any{map[string]any{"name": "http"}, map[string]any{"port": 80.0}},
			"labels": map[string]any{"a": map[string]any{"x": nil}},
			"none":   nil,
		},
	}
	tests := []struct {
		path DataPath
		want bool
	}{
		{nil, true},
		{DataPath{"spec"}, true},
		{DataPath{"spec", "ports", Any, "name"}, true},
		{DataPath{"spec", "ports", Any, "port"}, true},
		{DataPath{"spec", "ports", Any, "tls"}, false},
		{DataPath{"spec", "ports", "0"}, false},
		{DataPath{"spec", "labels", Any, "x"}, true},
		{DataPath{"spec", "labels", Any, "x", "y"}, false},
		{DataPath{"spec", "none"}, true},
		{DataPath{"spec", "none", "a"}, false},
		{DataPath{"status"}, false},
	}
	for _, tt := range tests {
		if got := Has(obj, tt.path); got != tt.want {
			t.Errorf("Has(%s) = %t, want %t", tt.path, got, tt.want)
		}
	}
	if got := (DataPath{"spec", "ports", Any, "name"}).String(); got != "spec.ports[*].name" {
		t.Errorf("String() = %q", got)
	}
}

func TestUsesOldSelf(t *testing.T) {
	tests := []struct {
		rule string
		want bool
	}{
		{"self == oldSelf", true},
		{"!has(oldSelf.x) || self.x == oldSelf.x", true},
		{"self.all(x, x != 'oldSelf')", false},
		{"self.oldSelf == 1", false},
		{"self.minReplicas <= self.maxReplicas", false},
		{"self == oldSelf &&", true}, // does not parse: word match
	}
	for _, tt := range tests {
		if got := usesOldSelf(tt.rule); got != tt.want {
			t.Errorf("usesOldSelf(%q) = %t, want %t", tt.rule, got, tt.want)
		}
	}
}

// TestSorted: the result is in the documented order whatever the order of
// the inputs' versions, and the same on every run.
func TestSorted(t *testing.T) {
	pairs := historyPairs(t)
	for _, p := range pairs {
		a := Revisions(p.old.CRD, p.new.CRD, Options{})
		if !slices.IsSortedFunc(a, func(x, y Change) int {
			return strings.Compare(x.Version+"\x00"+x.OldVersion+"\x00"+x.Path+"\x00"+x.Rule+"\x00"+x.Message,
				y.Version+"\x00"+y.OldVersion+"\x00"+y.Path+"\x00"+y.Rule+"\x00"+y.Message)
		}) {
			t.Errorf("%s: changes not sorted", p.name)
		}
		if b := Revisions(p.old.CRD, p.new.CRD, Options{}); !reflect.DeepEqual(a, b) {
			t.Errorf("%s: two runs differ", p.name)
		}
	}
}

// TestWidens: a rule widens another only when the scan is sure every
// operand of the old rule's top-level || is one of the new rule's.
func TestWidens(t *testing.T) {
	for _, tt := range []struct {
		old, new string
		want     bool
	}{
		{"self == '' || self == oldSelf", "self == '' || oldSelf == '' || self == oldSelf", true},
		{"self.a", "self.a || self.b", true},
		{"self.a", "self.b || (self.a)", true},
		{"(self.a || self.b)", "self.c ||  self.b\n|| self.a", true},
		{"self.x > 1", "self.x >  1 || has(self.y)", true},
		{"self.a || self.b", "self.a || self.b", false}, // no alternative added
		{"self.a || self.b", "self.a || self.c", false},
		{"self.a && self.b", "self.a || self.b", false},
		{"self.a && self.b", "self.a && self.b || self.c", true}, // && binds tighter
		{"self.a", "self.a ? true : self.b || self.c", false},    // ?: binds looser
		{"self.a ? x : y", "(self.a ? x : y) || z", false},
		{"self == 'a  b'", "self == 'a b' || self == 'c'", false}, // literals as written
		{"self == 'a || b'", "self == 'a || b' || self == 'c'", true},
		{"self == 'a || b'", "self == 'a' || self == 'b' || self == 'c'", false},
		{`self == "x\"||y"`, `self == "x\"||y" || false`, true},
		{`self == r'\' || self.a`, `self == r'\' || self.a || self.b`, true},
		{"self.a", "self.a || // comment\n self.b", false},
		{"(self.a", "(self.a || self.b", false},
		{"self.a)", "self.a) || self.b", false},
		{"'open", "'open || self.b", false},
		{"self.a", "self.a || ", false},
		{"self.l.exists(x, x || y)", "self.l.exists(x, x || y) || self.b", true},
		{"x || y", "x || y) || (z", false},
	} {
		if got := widens(tt.old, tt.new); got != tt.want {
			t.Errorf("widens(%q, %q) = %v, want %v", tt.old, tt.new, got, tt.want)
		}
	}
}
