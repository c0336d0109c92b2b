package crd

import (
	"slices"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	sigsyaml "sigs.k8s.io/yaml"
)

// gizmos is a CRD with two versions, v1alpha1 served and v1 the storage
// version; edit changes its YAML before decoding.
func gizmos(t *testing.T, edit func(string) string) *Definition {
	t.Helper()
	y := `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gizmos.example.org}
spec:
  group: example.org
  names: {plural: gizmos, kind: Gizmo}
  scope: Namespaced
  versions:
  - name: v1alpha1
    served: true
    storage: false
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            x-kubernetes-preserve-unknown-fields: true
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            x-kubernetes-validations:
            - rule: "!has(self.size) || self.size < 10"
              message: too big
            - rule: "!has(self.size) || self.size != 7"
              message: not seven
            properties:
              size: {type: integer}
              tier: {type: string, default: gold}
              items:
                type: array
                items:
                  type: object
                  x-kubernetes-validations: [{rule: "self.name != 'bad'", message: bad item}]
                  properties:
                    name: {type: string}
`
	if edit != nil {
		y = edit(y)
	}
	js, err := sigsyaml.YAMLToJSON([]byte(y))
	if err != nil {
		t.Fatal(err)
	}
	d := Decode(js)
	if d.v1 == nil {
		t.Fatalf("decode: %v", d.DecodeError)
	}
	return d
}

func obj(t *testing.T, y string) map[string]any {
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

// TestValidateUpdate: the server's verdict on updates from gizmos to an
// edit of it. (test/upgrade holds it against a real server over 134 real
// release pairs.)
func TestValidateUpdate(t *testing.T) {
	tests := []struct {
		name   string
		edit   func(string) string
		stored []string
		want   []string // "field: detail" prefixes, sorted
	}{
		{name: "unchanged"},
		{name: "description added", edit: func(y string) string {
			return strings.Replace(y, "size: {type: integer}", "size: {type: integer, description: how big}", 1)
		}},
		{name: "scope changed", edit: func(y string) string { return strings.Replace(y, "scope: Namespaced", "scope: Cluster", 1) },
			want: []string{`spec.scope: Invalid value: "Cluster": field is immutable`}},
		{name: "kind changed", edit: func(y string) string { return strings.Replace(y, "kind: Gizmo}", "kind: Gadget}", 1) },
			want: []string{`spec.names.kind: Invalid value: "Gadget": field is immutable`}},
		{name: "labels added", edit: func(y string) string {
			return strings.Replace(y, "metadata: {name: gizmos.example.org}", "metadata: {name: gizmos.example.org, labels: {a: b}}", 1)
		}},
		{name: "a served version removed", edit: func(y string) string {
			i := strings.Index(y, "  - name: v1alpha1")
			j := strings.Index(y, "  - name: v1\n")
			return y[:i] + y[j:]
		}},
		{name: "a stored version removed", stored: []string{"v1alpha1", "v1"}, edit: func(y string) string {
			i := strings.Index(y, "  - name: v1alpha1")
			j := strings.Index(y, "  - name: v1\n")
			return y[:i] + y[j:]
		}, want: []string{`status.storedVersions[0]: Invalid value: "v1alpha1": missing from spec.versions; v1alpha1 was previously a storage version`}},
		{name: "new CEL rule that does not compile", edit: func(y string) string {
			return strings.Replace(y, `message: too big`, "message: too big\n            - rule: \"self.nope > 1\"", 1)
		}, want: []string{`spec.versions[1].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[1].rule: Invalid value: {"Rule":"self.nope \u003e 1"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old, new := gizmos(t, nil), gizmos(t, tt.edit)
			if tt.stored != nil {
				old.v1.Status.StoredVersions = tt.stored
			}
			before := old.v1.DeepCopy()
			v := ValidateUpdate(old, new)
			if v.DecodeError != nil || v.Panic != "" {
				t.Fatalf("decode %v, panic %q", v.DecodeError, v.Panic)
			}
			var got []string
			for _, e := range v.Errors {
				got = append(got, e.Field+": "+e.ErrorBody())
			}
			slices.Sort(got)
			if len(got) != len(tt.want) {
				t.Fatalf("errors %q, want %d starting %q", got, len(tt.want), tt.want)
			}
			for i := range got {
				if !strings.HasPrefix(got[i], tt.want[i]) {
					t.Errorf("error %q, want it to start %q", got[i], tt.want[i])
				}
			}
			if v.Rejected(false) != (len(tt.want) > 0) {
				t.Errorf("Rejected = %t", v.Rejected(false))
			}
			if !apiequality.Semantic.DeepEqual(before, old.v1) {
				t.Errorf("ValidateUpdate changed OLD")
			}
		})
	}
}

// TestReadAndConvert: storage reads an object with the schema of the
// version it is stored in (pruned, defaulted); the None strategy
// relabels it and prunes with the target's schema.
func TestReadAndConvert(t *testing.T) {
	d := gizmos(t, nil)
	v1, err := CompileVersion(d.v1, "v1")
	if err != nil {
		t.Fatal(err)
	}
	alpha, err := CompileVersion(d.v1, "v1alpha1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := CompileVersion(d.v1, "v2"); err == nil {
		t.Errorf("a version the CRD lacks compiled")
	}
	stored := obj(t, "apiVersion: example.org/v1alpha1\nkind: Gizmo\nmetadata: {name: g, namespace: lab, generation: 0}\nspec: {size: 3, color: red, items: [{name: a, extra: x}]}")
	pruned, err := alpha.Read(stored)
	if err != nil || len(pruned) != 0 {
		t.Fatalf("v1alpha1 keeps everything: pruned %q, %v", pruned, err)
	}
	pruned, err = v1.Convert(stored)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"spec.color", "spec.items[0].extra"}; !slices.Equal(sorted(pruned), want) {
		t.Errorf("pruned %q converting to v1, want %q", pruned, want)
	}
	if stored["apiVersion"] != "example.org/v1" {
		t.Errorf("apiVersion %v after Convert", stored["apiVersion"])
	}
	if _, ok := stored["spec"].(map[string]any)["tier"]; ok {
		t.Errorf("Convert defaulted")
	}
	if _, err := v1.Read(stored); err != nil {
		t.Fatal(err)
	}
	if stored["spec"].(map[string]any)["tier"] != "gold" {
		t.Errorf("Read did not default: %v", stored["spec"])
	}
}

// TestRuleErrors: one rule of a schema, alone, with its node given as a
// custom resource path ("[*]" for items).
func TestRuleErrors(t *testing.T) {
	d := gizmos(t, nil)
	v, err := CompileVersion(d.v1, "v1")
	if err != nil {
		t.Fatal(err)
	}
	rule := func(node []string, i int) apiextensionsv1.ValidationRule {
		s := d.v1.Spec.Versions[1].Schema.OpenAPIV3Schema.Properties["spec"]
		if len(node) > 1 {
			s = *s.Properties["items"].Items.Schema
		}
		return s.XValidations[i]
	}
	o := obj(t, "apiVersion: example.org/v1\nkind: Gizmo\nmetadata: {name: g}\nspec: {size: 12, items: [{name: ok}, {name: bad}]}")
	for _, tt := range []struct {
		node []string
		i    int
		want []string
	}{
		{[]string{"spec"}, 0, []string{"spec: Invalid value: too big"}},
		{[]string{"spec"}, 1, nil},
		{[]string{"spec", "items", "[*]"}, 0, []string{"spec.items[1]: Invalid value: bad item"}},
	} {
		errs, err := v.RuleErrors(tt.node, rule(tt.node, tt.i), o, nil)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range errs {
			got = append(got, e.Field+": "+strings.ReplaceAll(e.ErrorBody(), `"object": `, ""))
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%v rule %d: %q, want %q", tt.node, tt.i, got, tt.want)
		}
	}
	if _, err := v.RuleErrors([]string{"spec"}, apiextensionsv1.ValidationRule{Rule: "self.size == 1"}, o, nil); err == nil {
		t.Errorf("a rule the schema does not have was evaluated")
	}
	if _, err := v.RuleErrors([]string{"nope"}, rule([]string{"spec"}, 0), o, nil); err == nil {
		t.Errorf("a rule at a field the schema does not have was evaluated")
	}
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}
