package fields

import (
	"fmt"
	"math/rand"
	"os"
	"sort"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apifields "k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/util/jsonpath"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/testutil"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// scalarField is a selectable candidate found in a schema.
type scalarField struct {
	path []string
	s    apiextensionsv1.JSONSchemaProps
}

// scalars finds up to max string, integer and boolean fields reachable
// through properties only (selectable fields may not cross arrays or maps).
func scalars(s *apiextensionsv1.JSONSchemaProps, max int) []scalarField {
	var out []scalarField
	type frame struct {
		s    apiextensionsv1.JSONSchemaProps
		path []string
	}
	queue := []frame{{*s, nil}}
	for len(queue) > 0 && len(out) < max {
		f := queue[0]
		queue = queue[1:]
		keys := make([]string, 0, len(f.s.Properties))
		for k := range f.s.Properties {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if len(f.path) == 0 && (k == "metadata" || k == "apiVersion" || k == "kind") {
				continue
			}
			if strings.ContainsAny(k, ".[]'\"\\ ") {
				continue
			}
			p := f.s.Properties[k]
			path := append(append([]string(nil), f.path...), k)
			switch p.Type {
			case "string", "integer", "boolean":
				if !p.XIntOrString && len(out) < max {
					out = append(out, scalarField{path, p})
				}
			case "object":
				if len(path) < 4 {
					queue = append(queue, frame{p, path})
				}
			}
		}
	}
	return out
}

// tricky values: what field selectors must escape or compare as strings.
var tricky = []string{"a,b", "x=y", "a\\b", "", " spaced ", "true", "0", "é", "a!=b"}

func randomValue(r *rand.Rand, s apiextensionsv1.JSONSchemaProps) any {
	if r.Intn(4) == 0 {
		return nil // absent
	}
	switch s.Type {
	case "boolean":
		return r.Intn(2) == 0
	case "integer":
		return int64(r.Intn(2000) - 1000)
	}
	if len(s.Enum) > 0 {
		var v any
		_ = jsonUnmarshal(s.Enum[r.Intn(len(s.Enum))].Raw, &v)
		return v
	}
	return tricky[r.Intn(len(tricky))]
}

// oracleValue is the server's value computation, written out from
// customResourceStrategy.selectableFields: client-go JSONPath with missing
// keys allowed, "" when absent or null, fmt.Sprint otherwise.
func oracleValue(t testing.TB, obj map[string]any, jsonPath string) string {
	p := jsonpath.New("f")
	p.AllowMissingKeys(true)
	if err := p.Parse("{" + jsonPath + "}"); err != nil {
		t.Fatal(err)
	}
	res, err := p.FindResults(obj)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) > 0 && len(res[0]) > 0 {
		if v := res[0][0].Interface(); v != nil {
			return fmt.Sprint(v)
		}
	}
	return ""
}

// oracleMatch applies the selector terms one by one, as the server's
// documented semantics say: = and == equal, != not equal, all ANDed.
func oracleMatch(terms [][3]string, values map[string]string) bool {
	for _, t := range terms {
		eq := values[t[0]] == t[2]
		if (t[1] == "!=") == eq {
			return false
		}
	}
	return true
}

func TestDifferentialFieldSelectors(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	var objects, selectors, matched, crds, skipped int
	for _, p := range testutil.Files(t, "crds") {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range crd.FindCRDs(source.Parse(p, data)) {
			if c.Def == nil || c.Def.Object() == nil {
				continue
			}
			v1 := c.Def.Object().DeepCopy()
			ver := &v1.Spec.Versions[0]
			for i := range v1.Spec.Versions {
				if v1.Spec.Versions[i].Served {
					ver = &v1.Spec.Versions[i]
					break
				}
			}
			if ver.Schema == nil || ver.Schema.OpenAPIV3Schema == nil {
				continue
			}
			cands := scalars(ver.Schema.OpenAPIV3Schema, 8)
			if len(cands) == 0 {
				continue
			}
			var sfs []apiextensionsv1.SelectableField
			for _, f := range cands {
				sfs = append(sfs, apiextensionsv1.SelectableField{JSONPath: "." + strings.Join(f.path, ".")})
			}
			// The server hoists what all versions share and trips over
			// mixed cases: identical schemas with selectableFields on one
			// version only are refused ("may only be set when
			// `version.schema.openAPIV3Schema` is not included"), and so are
			// differing schemas with identical selectableFields ("may only
			// be set when validations.schema is included"). So: on every
			// version when the schemas are identical, else on this one.
			same := true
			for _, other := range v1.Spec.Versions {
				same = same && apiequality.Semantic.DeepEqual(other.Schema, ver.Schema)
			}
			if same {
				for i := range v1.Spec.Versions {
					v1.Spec.Versions[i].SelectableFields = sfs
				}
			} else {
				ver.SelectableFields = sfs
			}
			// The CRD with its new selectableFields must still be one the
			// server accepts; versions whose schemas lack the fields make
			// it invalid, and such CRDs are left out.
			js, _ := jsonMarshal(v1)
			def := crd.Decode(js)
			if vd := def.Verdict(nil); vd.Rejected(false) {
				if os.Getenv("CRDLINT_DEBUG_SKIPS") != "" {
					t.Logf("%s left out: %v", v1.Name, vd.Errors)
				}
				skipped++
				continue
			}
			cat := crd.NewCatalog(false)
			cat.Add(def, p, crd.Input)
			gvk := schema.GroupVersionKind{Group: v1.Spec.Group, Version: ver.Name, Kind: v1.Spec.Names.Kind}
			v, err := cat.Lookup(gvk)
			if err != nil {
				t.Fatalf("%s: %v", v1.Name, err)
			}
			crds++
			for n := 0; n < 20; n++ {
				obj := map[string]any{"apiVersion": gvk.GroupVersion().String(), "kind": gvk.Kind,
					"metadata": map[string]any{"name": fmt.Sprintf("obj-%d", n), "namespace": "ns"}}
				for _, f := range cands {
					if val := randomValue(r, f.s); val != nil {
						setIn(obj, f.path, val)
					}
				}
				vd := v.Create(obj, "ns")
				if vd.Object == nil {
					continue
				}
				set, err := v.FieldSet(vd.Object)
				if err != nil {
					t.Fatal(err)
				}
				values := map[string]string{"metadata.name": vd.Object.GetName()}
				if v.Namespaced {
					values["metadata.namespace"] = vd.Object.GetNamespace()
				}
				for _, f := range cands {
					path := strings.Join(f.path, ".")
					values[path] = oracleValue(t, vd.Object.Object, "."+path)
				}
				if len(set) != len(values) {
					t.Fatalf("%s: got fields %v, want %v", v1.Name, set, values)
				}
				for k, want := range values {
					if set[k] != want {
						t.Fatalf("%s: field %s: got %q, want %q", v1.Name, k, set[k], want)
					}
				}
				objects++
				// Selectors built from this and random values.
				for s := 0; s < 5; s++ {
					var terms [][3]string
					var parts []string
					for k := 0; k < 1+r.Intn(3); k++ {
						f := cands[r.Intn(len(cands))]
						path := strings.Join(f.path, ".")
						val := values[path]
						if r.Intn(2) == 0 {
							val = fmt.Sprint(randomValue(r, f.s))
							if val == "<nil>" {
								val = ""
							}
						}
						op := []string{"=", "==", "!="}[r.Intn(3)]
						terms = append(terms, [3]string{path, op, val})
						parts = append(parts, path+op+apifields.EscapeValue(val))
					}
					expr := strings.Join(parts, ",")
					sel, err := Parse(expr)
					if err != nil {
						t.Fatalf("%s: %q: %v", v1.Name, expr, err)
					}
					sel, err = ForVersion(sel, v)
					if err != nil {
						t.Fatalf("%s: %q: %v", v1.Name, expr, err)
					}
					got, want := sel.Matches(set), oracleMatch(terms, values)
					if got != want {
						t.Fatalf("%s: %q on %v: got match %v, want %v", v1.Name, expr, values, got, want)
					}
					selectors++
					if got {
						matched++
					}
				}
			}
			// A field that is not selectable is refused with the server's words.
			sel, _ := Parse("spec.notSelectable=x")
			if _, err := ForVersion(sel, v); err == nil || err.Error() != "field label not supported: spec.notSelectable" {
				t.Fatalf("%s: got %v, want field label not supported: spec.notSelectable", v1.Name, err)
			}
		}
	}
	if crds < testutil.AtLeast(t, 50, 30) {
		t.Fatalf("only %d CRDs had selectable candidates", crds)
	}
	fmt.Fprintf(os.Stderr, "differential field selectors: %d corpus CRDs with selectableFields added (%d left out: the server refuses them), %d objects (values equal), %d selectors (%d matching) with the same verdicts\n", crds, skipped, objects, selectors, matched)
}

func setIn(obj map[string]any, path []string, v any) {
	m := obj
	for _, k := range path[:len(path)-1] {
		next, ok := m[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[k] = next
		}
		m = next
	}
	m[path[len(path)-1]] = v
}
