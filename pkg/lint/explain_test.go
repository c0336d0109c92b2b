package lint

import (
	"fmt"
	"math/rand"
	"os"
	"sort"
	"strings"
	"testing"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structurallisttype "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/engine"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// fullOrigins is the explanation engine.Version.Explain gave before it used
// facts about the schema: all three parts re-run on every object with
// errors, here from the oracle's own validator and structural schema.
type fullOrigins struct{ schema, embedded, listType map[string]bool }

func (f fullOrigins) ListType(e *field.Error) bool { return f.listType[e.Error()] }
func (f fullOrigins) Embedded(e *field.Error) bool { return f.embedded[e.Error()] }
func (f fullOrigins) Schema(e *field.Error) bool   { return f.schema[e.Error()] }

func (o *crOracle) explainAll(obj map[string]any) fullOrigins {
	f := fullOrigins{map[string]bool{}, map[string]bool{}, map[string]bool{}}
	for _, e := range apiservervalidation.ValidateCustomResource(nil, obj, o.validator) {
		f.schema[e.Error()] = true
	}
	for _, e := range engine.ServerValidateEmbedded(obj, o.structural) {
		f.embedded[e.Error()] = true
	}
	for _, e := range structurallisttype.ValidateListSetsAndMaps(nil, o.structural, obj) {
		f.listType[e.Error()] = true
	}
	return f
}

// explainDiff counts what the differential tests of Explain compared.
type explainDiff struct {
	objects, withErrors, errors int
	rules                       map[string]int
}

// compareExplain creates obj (which it takes over) and compares the rule
// of each error from Explain with the rule from the full re-run.
func compareExplain(t *testing.T, st *explainDiff, o *crOracle, name string, v *engine.Version, obj map[string]any, ns string) {
	t.Helper()
	st.objects++
	vd := v.Create(obj, ns)
	if vd.Panic != "" || vd.DecodeError != nil || len(vd.Errors) == 0 {
		return
	}
	st.withErrors++
	x := v.Explain(vd)
	got := make([]string, len(vd.Errors))
	for i, e := range vd.Errors {
		got[i] = classifyCR(e, x)
	}
	ref := o.explainAll(vd.Object.UnstructuredContent())
	for i, e := range vd.Errors {
		want := classifyCR(e, ref)
		if got[i] != want {
			t.Errorf("%s: %q: rule %s, the full re-run gives %s", name, e.Error(), got[i], want)
		}
		st.errors++
		st.rules[want]++
	}
}

func metadataOf(obj map[string]any) map[string]any {
	m, ok := obj["metadata"].(map[string]any)
	if !ok {
		m = map[string]any{}
		obj["metadata"] = m
	}
	return m
}

// explainMutations add to crMutations (schema, list-type and embedded
// errors) metadata errors like the corpus's cluster-api templates', and
// edits that break CEL rules more often than schema constraints.
var explainMutations = []struct {
	name string
	edit func(r *rand.Rand, obj map[string]any, s *structuralschema.Structural) bool
}{
	{"metadata-name-template", func(r *rand.Rand, obj map[string]any, s *structuralschema.Structural) bool {
		metadataOf(obj)["name"] = "${CLUSTER_NAME}-md-0"
		return true
	}},
	{"metadata-label-invalid", func(r *rand.Rand, obj map[string]any, s *structuralschema.Structural) bool {
		m := metadataOf(obj)
		labels, ok := m["labels"].(map[string]any)
		if !ok {
			labels = map[string]any{}
			m["labels"] = labels
		}
		labels["bad key!"] = "${VALUE}"
		return true
	}},
	{"metadata-generateName-template", func(r *rand.Rand, obj map[string]any, s *structuralschema.Structural) bool {
		m := metadataOf(obj)
		delete(m, "name")
		m["generateName"] = "${PREFIX}_"
		return true
	}},
	{"string-emptied", func(r *rand.Rand, obj map[string]any, s *structuralschema.Structural) bool {
		return mutateAt(r, obj, s, func(n node) bool {
			_, ok := n.v.(string)
			return ok && n.parent != nil
		}, func(n node) { n.set("") })
	}},
	{"integer-negated", func(r *rand.Rand, obj map[string]any, s *structuralschema.Structural) bool {
		return mutateAt(r, obj, s, func(n node) bool {
			_, ok := n.v.(int64)
			return ok && n.parent != nil
		}, func(n node) { n.set(int64(-1)) })
	}},
	{"list-emptied", func(r *rand.Rand, obj map[string]any, s *structuralschema.Structural) bool {
		return mutateAt(r, obj, s, func(n node) bool {
			l, ok := n.v.([]any)
			return ok && len(l) > 0 && n.parent != nil
		}, func(n node) { n.set([]any{}) })
	}},
	{"optional-deleted", func(r *rand.Rand, obj map[string]any, s *structuralschema.Structural) bool {
		optional := func(n node) []string {
			m, ok := n.v.(map[string]any)
			if !ok || n.s == nil || n.parent == nil {
				return nil
			}
			req := map[string]bool{}
			if n.s.ValueValidation != nil {
				for _, k := range n.s.ValueValidation.Required {
					req[k] = true
				}
			}
			var ks []string
			for _, k := range sortedKeys(m) {
				if !req[k] {
					ks = append(ks, k)
				}
			}
			return ks
		}
		return mutateAt(r, obj, s, func(n node) bool { return len(optional(n)) > 0 }, func(n node) {
			ks := optional(n)
			delete(n.v.(map[string]any), ks[r.Intn(len(ks))])
		})
	}},
}

// TestExplainDifferentialCorpus compares, for every corpus custom
// resource a corpus CRD serves and for mutants of each (one mutation, and
// the same with a templated name on top), the rule IDs classifyCR gives
// with engine.Version.Explain against those it gives with the full re-run.
func TestExplainDifferentialCorpus(t *testing.T) {
	_, cat, oracle := corpusCRCatalog(t)
	mutations := append(append([]struct {
		name string
		edit func(r *rand.Rand, obj map[string]any, s *structuralschema.Structural) bool
	}{}, crMutations...), explainMutations...)
	st := &explainDiff{rules: map[string]int{}}
	r := rand.New(rand.NewSource(3))
	eachServedCorpusCR(t, cat, func(name string, d *source.Document, v *engine.Version) {
		o := oracle(v)
		ns := d.Object.Namespace
		if ns == "" {
			ns = crd.DefaultNamespace
		}
		decode := func() map[string]any {
			var obj map[string]any
			if err := utiljson.Unmarshal(d.JSON, &obj); err != nil {
				t.Fatal(err)
			}
			return obj
		}
		compareExplain(t, st, o, name, v, decode(), ns)
		for _, m := range mutations {
			obj := decode()
			if !m.edit(r, obj, v.Structural()) {
				continue
			}
			compareExplain(t, st, o, name+"~"+m.name, v, obj, ns)
			if strings.HasPrefix(m.name, "metadata-") {
				continue
			}
			obj = decode()
			m.edit(r, obj, v.Structural())
			explainMutations[0].edit(r, obj, v.Structural())
			compareExplain(t, st, o, name+"~"+m.name+"+metadata-name-template", v, obj, ns)
		}
	})
	// No corpus CRD has an embedded resource: the base CRD's cases have.
	for _, rule := range []string{RuleCRSchema, RuleCRCEL, RuleCRListType, RuleCRMetadata} {
		if st.rules[rule] == 0 {
			t.Errorf("no %s error among the corpus mutants: the test misses a part", rule)
		}
	}
	t.Logf("explain differential (corpus): %d objects, %d with errors, %d errors classified alike: %s", st.objects, st.withErrors, st.errors, ruleCounts(st.rules))
}

// TestExplainDifferentialBase does the same for testdata/base-crd.yaml
// (CEL, list types, an embedded resource, scale) with objects that break
// each part, the type meta included.
func TestExplainDifferentialBase(t *testing.T) {
	b, err := os.ReadFile("testdata/base-crd.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cat := crd.NewCatalog(false)
	l := New(Options{Catalog: cat})
	collect(l, source.Parse("base-crd.yaml", b))
	v, err := cat.Lookup(schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"})
	if err != nil {
		t.Fatalf("base CRD not served: %v", err)
	}
	o := newCROracle(t, decodedCRDs(t, "testdata/base-crd.yaml")[v.GVK.GroupKind()], "v1")
	st := &explainDiff{rules: map[string]int{}}
	metas := []string{`{name: w1}`, `{name: "${NAME}"}`, `{name: w1, labels: {"bad key!": x}}`, `{generateName: "${X}_"}`}
	for _, c := range append(baseCRs, struct{ name, yaml string }{"kind-mismatch", `kind: Gadget
spec: {color: purple}`}) {
		for _, meta := range metas {
			y := "apiVersion: example.com/v1\nkind: Widget\nmetadata: " + meta + "\n" + c.yaml + "\n"
			if c.name == "kind-mismatch" {
				y = "apiVersion: example.com/v1\nmetadata: " + meta + "\n" + c.yaml + "\n"
			}
			f := source.Parse(c.name+".yaml", []byte(y))
			if len(f.Documents) != 1 {
				t.Fatalf("%s: did not parse: %v", c.name, f.Findings)
			}
			var obj map[string]any
			if err := utiljson.Unmarshal(f.Documents[0].JSON, &obj); err != nil {
				t.Fatal(err)
			}
			compareExplain(t, st, o, c.name+" metadata "+meta, v, obj, "ns")
		}
	}
	for _, rule := range []string{RuleCRTypeMeta, RuleCRSchema, RuleCRCEL, RuleCRListType, RuleCREmbedded, RuleCRMetadata, RuleCRScale} {
		if st.rules[rule] == 0 {
			t.Errorf("no %s error among the base cases: the test misses a part", rule)
		}
	}
	t.Logf("explain differential (base CRD): %d objects, %d with errors, %d errors classified alike: %s", st.objects, st.withErrors, st.errors, ruleCounts(st.rules))
}

func ruleCounts(m map[string]int) string {
	var s []string
	for k, n := range m {
		s = append(s, fmt.Sprintf("%s=%d", k, n))
	}
	sort.Strings(s)
	return strings.Join(s, " ")
}
