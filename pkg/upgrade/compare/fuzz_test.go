package compare

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/crdtest"
)

var (
	fuzzOnce  sync.Once
	fuzzBases []*apiextensionsv1.CustomResourceDefinition
)

// fuzzCRDs are the newest release of every history: real schemas, always
// in the repository.
func fuzzCRDs(tb testing.TB) []*apiextensionsv1.CustomResourceDefinition {
	fuzzOnce.Do(func() {
		for _, dir := range historyCRDs(tb) {
			rs := releases(tb, dir)
			fuzzBases = append(fuzzBases, rs[len(rs)-1].CRD)
		}
	})
	return fuzzBases
}

// schemaNode is one node of a version's schema as the comparison walks
// it (properties, items, additionalProperties; not junctors).
type schemaNode struct {
	s    *apiextensionsv1.JSONSchemaProps
	path *field.Path
}

// visitNodes calls f on every node of s in a fixed order (property names
// sorted), letting f change the node in place: properties are map values,
// so each is written back after f.
func visitNodes(s *apiextensionsv1.JSONSchemaProps, p *field.Path, f func(schemaNode)) {
	if s == nil {
		return
	}
	f(schemaNode{s: s, path: p})
	names := make([]string, 0, len(s.Properties))
	for k := range s.Properties {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		c := s.Properties[k]
		visitNodes(&c, p.Child("properties").Key(k), f)
		s.Properties[k] = c
	}
	if s.Items != nil {
		visitNodes(s.Items.Schema, p.Child("items"), f)
	}
	if s.AdditionalProperties != nil {
		visitNodes(s.AdditionalProperties.Schema, p.Child("additionalProperties"), f)
	}
}

// mutation is what FuzzCompare did and what it expects to be reported.
type mutation struct {
	what       string
	rule, path string // "" when no particular change is expected
	rules      []string
	none       bool // documentation only: no change at all
}

var flipTypes = []string{"string", "integer", "boolean", "object", "array", "number"}

// mutate changes one thing of crd (a copy) at the n-th node of version v.
func mutate(crd *apiextensionsv1.CustomResourceDefinition, v int, n uint32, op uint8, salt uint32) (m mutation) {
	if op%7 == 6 {
		redocument(crd)
		return mutation{what: "documentation", none: true}
	}
	ver := &crd.Spec.Versions[v]
	if ver.Schema == nil || ver.Schema.OpenAPIV3Schema == nil {
		return mutation{what: "no schema"}
	}
	root := versionsPath.Index(v).Child("schema", "openAPIV3Schema")
	count := 0
	visitNodes(ver.Schema.OpenAPIV3Schema, root, func(schemaNode) { count++ })
	target, i := int(n%uint32(count)), 0
	visitNodes(ver.Schema.OpenAPIV3Schema, root, func(sn schemaNode) {
		if i == target {
			m = mutateNode(sn, op, salt)
		}
		i++
	})
	return m
}

func mutateNode(sn schemaNode, op uint8, salt uint32) mutation {
	s, p := sn.s, sn.path
	switch op % 7 {
	case 0: // drop a property
		if len(s.Properties) == 0 {
			return mutation{what: "no property to drop"}
		}
		names := make([]string, 0, len(s.Properties))
		for k := range s.Properties {
			names = append(names, k)
		}
		sort.Strings(names)
		k := names[int(salt)%len(names)]
		delete(s.Properties, k)
		m := mutation{what: "drop " + k}
		// The server keeps the field anyway where the node preserves
		// unknown fields or is a map, and keeps apiVersion, kind and
		// metadata of the root and of embedded resources.
		meta := k == "apiVersion" || k == "kind" || k == "metadata"
		keeps := isTrue(s.XPreserveUnknownFields) || s.AdditionalProperties != nil ||
			(meta && (strings.HasSuffix(p.String(), ".openAPIV3Schema") || s.XEmbeddedResource))
		if !keeps {
			m.rule, m.path = RuleFieldRemoved, p.Child("properties").Key(k).String()
		}
		return m
	case 1: // flip the type
		if s.Type == "" || s.XIntOrString {
			return mutation{what: "no type to flip"}
		}
		t := flipTypes[int(salt)%len(flipTypes)]
		if t == s.Type || (s.Type == "integer" && t == "number") {
			t = "boolean"
			if s.Type == "boolean" {
				t = "string"
			}
		}
		s.Type = t
		return mutation{what: "type " + t, rule: RuleTypeChanged, path: p.Child("type").String()}
	case 2: // tighten a bound
		if s.XIntOrString {
			return mutation{what: "int-or-string"}
		}
		var key string
		var b **int64
		switch s.Type {
		case "integer", "number":
			v := float64(salt % 100)
			if s.Maximum != nil {
				v = *s.Maximum - 1 - float64(salt%10)
			}
			s.Maximum = &v
			return mutation{what: "maximum", rule: RuleBoundTightened, path: p.Child("maximum").String()}
		case "string":
			key, b = "maxLength", &s.MaxLength
		case "array":
			key, b = "maxItems", &s.MaxItems
		case "object":
			key, b = "maxProperties", &s.MaxProperties
		default:
			return mutation{what: "no bound for " + s.Type}
		}
		v := int64(salt % 64)
		if *b != nil {
			if **b == 0 {
				return mutation{what: key + " already 0"}
			}
			v = **b - 1 - int64(salt)%**b
		}
		*b = &v
		return mutation{what: key, rule: RuleBoundTightened, path: p.Child(key).String()}
	case 3: // change the enum
		switch {
		case len(s.Enum) >= 2:
			i := int(salt) % len(s.Enum)
			s.Enum = slices.Delete(slices.Clone(s.Enum), i, i+1)
		case len(s.Enum) == 1:
			s.Enum = []apiextensionsv1.JSON{{Raw: []byte(fmt.Sprintf(`"fuzz-%d"`, salt))}}
		case s.Type == "string" && !s.XIntOrString:
			s.Enum = []apiextensionsv1.JSON{{Raw: []byte(`"fuzz"`)}}
			return mutation{what: "enum added", rule: RuleEnumAdded, path: p.Child("enum").String()}
		default:
			return mutation{what: "no enum"}
		}
		if len(s.Enum) == 0 {
			return mutation{what: "enum emptied"}
		}
		return mutation{what: "enum value removed", rule: RuleEnumRemoved, path: p.Child("enum").String()}
	case 4: // require a property
		names := make([]string, 0, len(s.Properties))
		for k, c := range s.Properties {
			if !slices.Contains(s.Required, k) && c.Default == nil {
				names = append(names, k)
			}
		}
		if len(names) == 0 {
			return mutation{what: "nothing to require"}
		}
		sort.Strings(names)
		k := names[int(salt)%len(names)]
		s.Required = append(slices.Clone(s.Required), k)
		return mutation{what: "require " + k, rules: []string{RuleRequiredAdded, RuleRequiredAddedOptional},
			path: p.Child("required").Index(len(s.Required) - 1).String()}
	default: // add a CEL rule
		rule, want := "self == self", RuleCELRuleAdded
		if salt%2 == 1 {
			rule, want = "self == oldSelf", RuleTransitionRuleAdded
		}
		s.XValidations = append(slices.Clone(s.XValidations), apiextensionsv1.ValidationRule{Rule: rule})
		return mutation{what: "rule " + rule, rule: want, path: p.Child("x-kubernetes-validations").Index(len(s.XValidations) - 1).Child("rule").String()}
	}
}

// FuzzCompare mutates one thing of a real schema (drop a property, flip a
// type, tighten a bound, change an enum, require a field, add a CEL rule,
// reword the documentation) and checks that nothing panics, that the
// mutated CRD compared with itself reports nothing, and that the
// mutation's rule is reported at the mutated place (documentation: nothing
// at all).
func FuzzCompare(f *testing.F) {
	bases := fuzzCRDs(f)
	for i := range 7 {
		f.Add(uint16(i*5), uint8(0), uint32(i*37), uint8(i), uint32(i*101))
	}
	f.Fuzz(func(t *testing.T, pick uint16, v uint8, node uint32, op uint8, salt uint32) {
		old := bases[int(pick)%len(bases)]
		if len(old.Spec.Versions) == 0 {
			return
		}
		new := old.DeepCopy()
		vi := int(v) % len(new.Spec.Versions)
		m := mutate(new, vi, node, op, salt)
		cs := Revisions(old, new, Options{})
		if self := Revisions(new, new.DeepCopy(), Options{}); len(self) > 0 {
			t.Fatalf("%s after %s compared with itself: %+v", old.Name, m.what, self[0])
		}
		Revisions(new, old, Options{}) // the other way round must not panic either
		switch {
		case m.none:
			if len(cs) > 0 {
				t.Fatalf("%s: %s: %d changes, first %s %s", old.Name, m.what, len(cs), cs[0].Path, cs[0].Message)
			}
		case m.path != "":
			rules := m.rules
			if m.rule != "" {
				rules = []string{m.rule}
			}
			if !slices.ContainsFunc(cs, func(c Change) bool { return slices.Contains(rules, c.Rule) && c.Path == m.path }) {
				t.Fatalf("%s: %s: no %v at %s; got %q", old.Name, m.what, rules, m.path, brief(cs))
			}
		}
	})
}

// FuzzCompareJSON compares arbitrary CRDs (any JSON the server's decoder
// takes): nothing panics, and each compared with itself reports nothing.
func FuzzCompareJSON(f *testing.F) {
	for _, p := range []string{"upgrade-storage-version-changed/storage-pair.yaml", "upgrade-conversion-changed/webhook-moved.yaml", "upgrade-field-removed/removed.yaml", "upgrade-list-type-changed/list-types.yaml"} {
		fx := readFixture(f, filepath.Join(rulesDir, p))
		a, _ := json.Marshal(fx.old.CRD)
		b, _ := json.Marshal(fx.new.CRD)
		f.Add(a, b)
	}
	f.Add([]byte(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","spec":{"versions":[{"name":"v1"},{"name":"v1","storage":true}]}}`),
		[]byte(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","spec":{"conversion":{"strategy":"Webhook"},"versions":[{"name":"v1","schema":{"openAPIV3Schema":{"properties":{"a":{"items":{}}}}}}]}}`))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		old, err := crdtest.Decode(a)
		if err != nil {
			return
		}
		new, err := crdtest.Decode(b)
		if err != nil {
			return
		}
		Revisions(old, new, Options{})
		Revisions(new, old, Options{})
		for _, c := range []*apiextensionsv1.CustomResourceDefinition{old, new} {
			if cs := Revisions(c, c.DeepCopy(), Options{}); len(cs) > 0 {
				t.Fatalf("compared with itself: %+v", cs[0])
			}
		}
	})
}

// TestMutations runs FuzzCompare's mutations deterministically over every
// history CRD: each operation on nodes spread over each schema, and
// counts them, so that a plain go test checks hundreds of expected changes
// without fuzzing.
func TestMutations(t *testing.T) {
	checked := map[string]int{}
	for _, old := range fuzzCRDs(t) {
		for op := range uint8(7) {
			for node := uint32(0); node < 400; node += 43 {
				if op == 6 && node > 0 {
					break // documentation: the whole CRD at once
				}
				new := old.DeepCopy()
				v := int(node) % len(new.Spec.Versions)
				m := mutate(new, v, node, op, node*7919)
				cs := Revisions(old, new, Options{})
				if self := Revisions(new, new.DeepCopy(), Options{}); len(self) > 0 {
					t.Fatalf("%s after %s compared with itself: %+v", old.Name, m.what, self[0])
				}
				switch {
				case m.none:
					if len(cs) > 0 {
						t.Errorf("%s: %s: %d changes", old.Name, m.what, len(cs))
					}
					checked["documentation"]++
				case m.path != "":
					rules := m.rules
					if m.rule != "" {
						rules = []string{m.rule}
					}
					if !slices.ContainsFunc(cs, func(c Change) bool { return slices.Contains(rules, c.Rule) && c.Path == m.path }) {
						t.Errorf("%s: %s: no %v at %s; got %q", old.Name, m.what, rules, m.path, brief(cs))
					}
					checked[rules[0]]++
				}
			}
		}
	}
	t.Logf("mutations checked: %v", checked)
	for _, r := range []string{RuleFieldRemoved, RuleTypeChanged, RuleBoundTightened, RuleEnumRemoved, RuleEnumAdded, RuleRequiredAdded, RuleCELRuleAdded, RuleTransitionRuleAdded, "documentation"} {
		if checked[r] < 5 {
			t.Errorf("only %d mutations expecting %s", checked[r], r)
		}
	}
}

// FuzzWidens: the scan of CEL rules never panics, a rule never widens
// itself, and widening goes one way only.
func FuzzWidens(f *testing.F) {
	for _, s := range []string{"self == '' || self == oldSelf", `(a || "x\"||") || r'\' || '''t''' || b`, "((a)", "a ? b : c || d", "'"} {
		f.Add(s, s+" || x")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		if widens(a, a) {
			t.Errorf("%q widens itself", a)
		}
		if widens(a, b) && widens(b, a) {
			t.Errorf("%q and %q widen each other", a, b)
		}
	})
}
