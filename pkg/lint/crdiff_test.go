package lint

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/pathtest"
	"github.com/kubectl-crdlint/kubectl-crdlint/internal/testutil"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/engine"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// crOracle is the server's create of a custom resource, assembled in the
// test from the server's libraries the way customresource_handler.go
// assembles them, apart from pkg/crd.
type crOracle struct {
	structural *structuralschema.Structural
	validator  apiservervalidation.SchemaValidator
	strategy   rest.RESTCreateStrategy
	namespaced bool
}

type oracleTyper struct{}

func (oracleTyper) ObjectKinds(o runtime.Object) ([]schema.GroupVersionKind, bool, error) {
	return []schema.GroupVersionKind{o.GetObjectKind().GroupVersionKind()}, false, nil
}
func (oracleTyper) Recognizes(schema.GroupVersionKind) bool { return true }

func newCROracle(t testing.TB, c *apiextensionsv1.CustomResourceDefinition, ver string) *crOracle {
	val, _ := apihelpers.GetSchemaForVersion(c, ver)
	in := &apiextensions.CustomResourceValidation{}
	if err := apiextensionsv1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(val, in, nil); err != nil {
		t.Fatal(err)
	}
	s, err := structuralschema.NewStructural(in.OpenAPIV3Schema)
	if err != nil {
		t.Fatal(err)
	}
	s = s.DeepCopy()
	if err := structuraldefaulting.PruneDefaults(s); err != nil {
		t.Fatal(err)
	}
	validator, _, err := apiservervalidation.NewSchemaValidator(in.OpenAPIV3Schema)
	if err != nil {
		t.Fatal(err)
	}
	sub, _ := apihelpers.GetSubresourcesForVersion(c, ver)
	var status *apiextensions.CustomResourceSubresourceStatus
	var statusValidator apiservervalidation.SchemaValidator
	var scale *apiextensions.CustomResourceSubresourceScale
	if sub != nil && sub.Status != nil {
		status = &apiextensions.CustomResourceSubresourceStatus{}
		if st, ok := in.OpenAPIV3Schema.Properties["status"]; ok {
			statusValidator, _, _ = apiservervalidation.NewSchemaValidator(&st)
		}
	}
	if sub != nil && sub.Scale != nil {
		scale = &apiextensions.CustomResourceSubresourceScale{}
		_ = apiextensionsv1.Convert_v1_CustomResourceSubresourceScale_To_apiextensions_CustomResourceSubresourceScale(sub.Scale, scale, nil)
	}
	var sf []apiextensionsv1.SelectableField
	for _, v := range c.Spec.Versions {
		if v.Name == ver {
			sf = v.SelectableFields
		}
	}
	namespaced := c.Spec.Scope == apiextensionsv1.NamespaceScoped
	gvk := schema.GroupVersionKind{Group: c.Spec.Group, Version: ver, Kind: c.Spec.Names.Kind}
	return &crOracle{structural: s, validator: validator, namespaced: namespaced,
		strategy: customresource.NewStrategy(oracleTyper{}, namespaced, gvk, validator, statusValidator, s, status, scale, sf)}
}

// create returns the server's errors and unknown-field warnings as
// "field: message" strings, and whether the create is rejected.
func (o *crOracle) create(js []byte, ns string) (pairs []string, rejected bool) {
	var m map[string]any
	if err := utiljson.Unmarshal(js, &m); err != nil {
		return []string{"decode"}, true
	}
	u := &unstructured.Unstructured{Object: m}
	kind, apiVersion := u.GetKind(), u.GetAPIVersion()
	meta, found, unknown, err := schemaobjectmeta.GetObjectMetaWithOptions(m, schemaobjectmeta.ObjectMetaOptions{ReturnUnknownFieldPaths: true})
	if err != nil {
		return []string{"decode"}, true
	}
	unknown = append(unknown, structuralpruning.PruneWithOptions(m, o.structural, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})...)
	structuraldefaulting.PruneNonNullableNullsWithoutDefaults(m, o.structural)
	ferr, paths := schemaobjectmeta.CoerceWithOptions(nil, m, o.structural, false, schemaobjectmeta.CoerceOptions{ReturnUnknownFieldPaths: true})
	if ferr != nil {
		return []string{"decode"}, true
	}
	unknown = append(unknown, paths...)
	u.SetKind(kind)
	u.SetAPIVersion(apiVersion)
	if found {
		_ = schemaobjectmeta.SetObjectMeta(m, meta)
	}
	structuraldefaulting.Default(m, o.structural)
	if !o.namespaced {
		ns = ""
	}
	u.SetNamespace(ns)
	// Store.create names the object from generateName before BeforeCreate.
	if u.GetName() == "" && u.GetGenerateName() != "" {
		u.SetName(truncate(u.GetGenerateName(), 58) + "crdlt")
	}
	ctx := genericapirequest.WithNamespace(context.Background(), ns)
	o.strategy.PrepareForCreate(ctx, u)
	for _, p := range unknown {
		pairs = append(pairs, pathtest.Pair(p, fmt.Sprintf("unknown field %q", p)))
	}
	errs := engine.ServerValidateCreate(ctx, u, o.strategy)
	for _, e := range errs {
		// In crdlint's one notation: a root error names no field, a scale
		// path has no leading dot.
		pairs = append(pairs, pathtest.Pair(strings.TrimPrefix(strings.TrimPrefix(e.Field, "<nil>"), "."), e.ErrorBody()))
	}
	return dedupe(pairs), len(errs) > 0
}

// crPairs are the linter's errors and unknown-field warnings.
func crPairs(fs []report.Finding) (pairs []string, rejected bool) {
	for _, f := range fs {
		switch {
		case f.Rule == RuleCRDecode:
			pairs = append(pairs, "decode")
			rejected = true
		case f.Rule == RuleUnknownField:
			pairs = append(pairs, pathtest.Pair(f.Field, f.Message))
		case f.Severity == report.Error:
			pairs = append(pairs, pathtest.Pair(f.Field, f.Message))
			rejected = true
		}
	}
	return dedupe(pairs), rejected
}

// crMutations edit a decoded custom resource where its schema allows;
// each returns false when it found no place to apply.
var crMutations = []struct {
	name string
	edit func(r *rand.Rand, obj map[string]any, s *structuralschema.Structural) bool
}{
	{"type-flipped", func(r *rand.Rand, obj map[string]any, s *structuralschema.Structural) bool {
		return mutateAt(r, obj, s, func(n node) bool {
			return n.s != nil && (n.s.Type == "string" || n.s.Type == "integer" || n.s.Type == "boolean") && n.parent != nil
		},
			func(n node) {
				if n.s.Type == "string" {
					n.set(int64(12345))
				} else {
					n.set("not-a-" + n.s.Type)
				}
			})
	}},
	{"required-removed", func(r *rand.Rand, obj map[string]any, s *structuralschema.Structural) bool {
		return mutateAt(r, obj, s, func(n node) bool {
			m, ok := n.v.(map[string]any)
			if !ok || n.s == nil || n.s.ValueValidation == nil {
				return false
			}
			for _, k := range n.s.ValueValidation.Required {
				if _, ok := m[k]; ok && (n.s.Properties[k].Default.Object == nil) {
					return true
				}
			}
			return false
		}, func(n node) {
			m := n.v.(map[string]any)
			for _, k := range n.s.ValueValidation.Required {
				if _, ok := m[k]; ok && n.s.Properties[k].Default.Object == nil {
					delete(m, k)
					return
				}
			}
		})
	}},
	{"enum-broken", func(r *rand.Rand, obj map[string]any, s *structuralschema.Structural) bool {
		return mutateAt(r, obj, s, func(n node) bool {
			return n.s != nil && n.s.ValueValidation != nil && len(n.s.ValueValidation.Enum) > 0 && n.parent != nil
		}, func(n node) { n.set("crdlint-not-in-enum") })
	}},
	{"pattern-broken", func(r *rand.Rand, obj map[string]any, s *structuralschema.Structural) bool {
		return mutateAt(r, obj, s, func(n node) bool {
			return n.s != nil && n.s.ValueValidation != nil && n.s.ValueValidation.Pattern != "" && n.parent != nil
		}, func(n node) { n.set("!!! not matching ###") })
	}},
	{"unknown-field", func(r *rand.Rand, obj map[string]any, s *structuralschema.Structural) bool {
		return mutateAt(r, obj, s, func(n node) bool {
			_, ok := n.v.(map[string]any)
			return ok
		}, func(n node) { n.v.(map[string]any)["crdlintUnknown"] = map[string]any{"deep": int64(1)} })
	}},
	{"list-map-key-duplicated", func(r *rand.Rand, obj map[string]any, s *structuralschema.Structural) bool {
		return mutateAt(r, obj, s, func(n node) bool {
			l, ok := n.v.([]any)
			return ok && len(l) > 0 && n.s != nil && n.s.XListType != nil && (*n.s.XListType == "map" || *n.s.XListType == "set") && n.parent != nil
		}, func(n node) {
			l := n.v.([]any)
			n.set(append(l, deepCopy(l[0])))
		})
	}},
	{"embedded-without-apiVersion", func(r *rand.Rand, obj map[string]any, s *structuralschema.Structural) bool {
		return mutateAt(r, obj, s, func(n node) bool {
			m, ok := n.v.(map[string]any)
			return ok && n.s != nil && n.s.XEmbeddedResource && n.parent != nil && m["apiVersion"] != nil
		}, func(n node) { delete(n.v.(map[string]any), "apiVersion") })
	}},
}

// node is a place in an object with its schema.
type node struct {
	v      any
	s      *structuralschema.Structural
	parent any
	key    string
	index  int
}

func (n node) set(v any) {
	switch p := n.parent.(type) {
	case map[string]any:
		p[n.key] = v
	case []any:
		p[n.index] = v
	}
}

// mutateAt applies edit at a randomly chosen node that match accepts.
func mutateAt(r *rand.Rand, obj map[string]any, s *structuralschema.Structural, match func(node) bool, edit func(node)) bool {
	var cands []node
	stack := []node{{v: obj, s: s}}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if match(n) {
			cands = append(cands, n)
		}
		switch v := n.v.(type) {
		case map[string]any:
			for _, k := range sortedKeys(v) {
				if n.s == nil || (n.parent == nil && (k == "metadata" || k == "apiVersion" || k == "kind")) {
					continue
				}
				var cs *structuralschema.Structural
				if p, ok := n.s.Properties[k]; ok {
					cs = &p
				} else if n.s.AdditionalProperties != nil {
					cs = n.s.AdditionalProperties.Structural
				}
				if cs != nil {
					stack = append(stack, node{v: v[k], s: cs, parent: v, key: k})
				}
			}
		case []any:
			if n.s != nil && n.s.Items != nil {
				for i := range v {
					stack = append(stack, node{v: v[i], s: n.s.Items, parent: v, index: i})
				}
			}
		}
	}
	if len(cands) == 0 {
		return false
	}
	edit(cands[r.Intn(len(cands))])
	return true
}

// decodedCRDs decodes the CRDs of files by group and kind (a later one
// wins, as in the catalogue), for the oracles: they need the CRDs whole,
// and the catalogue drops the decoded schemas of the versions it compiles.
func decodedCRDs(t testing.TB, files ...string) map[schema.GroupKind]*apiextensionsv1.CustomResourceDefinition {
	out := map[schema.GroupKind]*apiextensionsv1.CustomResourceDefinition{}
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range source.Parse(p, data).Documents {
			if !crd.IsCRD(d) {
				continue
			}
			if c := crd.Decode(d.JSON).Object(); c != nil {
				out[schema.GroupKind{Group: c.Spec.Group, Kind: c.Spec.Names.Kind}] = c
			}
		}
	}
	return out
}

// corpusCRCatalog is a linter whose catalogue holds every corpus CRD, and
// the oracle for a version, built once per version from the CRD decoded
// apart (the catalogue drops compiled versions' decoded schemas).
func corpusCRCatalog(t *testing.T) (*Linter, *crd.Catalog, func(*engine.Version) *crOracle) {
	cat := crd.NewCatalog(false)
	l := New(Options{Catalog: cat})
	files := testutil.Files(t, "crds")
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		collect(l, source.Parse(p, data))
	}
	decoded := decodedCRDs(t, files...)
	oracles := map[schema.GroupVersionKind]*crOracle{}
	return l, cat, func(v *engine.Version) *crOracle {
		o := oracles[v.GVK]
		if o == nil {
			o = newCROracle(t, decoded[v.GVK.GroupKind()], v.GVK.Version)
			oracles[v.GVK] = o
		}
		return o
	}
}

// eachServedCorpusCR calls fn, in corpus order, for every corpus custom
// resource whose version cat serves, with its name for messages.
func eachServedCorpusCR(t *testing.T, cat *crd.Catalog, fn func(name string, d *source.Document, v *engine.Version)) {
	for _, p := range testutil.Files(t, "crs") {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range source.Parse(filepath.Base(p), data).Documents {
			if crd.IsCRD(d) || crd.IsBuiltin(d) {
				continue
			}
			g, ver := d.GroupVersion()
			v, err := cat.Lookup(schema.GroupVersionKind{Group: g, Version: ver, Kind: d.Object.Kind})
			if err != nil {
				continue
			}
			fn(fmt.Sprintf("%s#%d.%d", d.File, d.Index, d.Item), d, v)
		}
	}
}

func TestDifferentialCRCorpus(t *testing.T) {
	l, cat, oracle := corpusCRCatalog(t)
	r := rand.New(rand.NewSource(1))
	var docs, rejected, errPairs, mutantsN int
	perMutation := map[string]int{}
	check := func(name string, d *source.Document, v *engine.Version, js []byte) {
		t.Helper()
		o := oracle(v)
		ns := d.Object.Namespace
		if ns == "" {
			ns = crd.DefaultNamespace
		}
		want, wantRejected := o.create(js, ns)
		got, gotRejected := crPairs(l.CR(d))
		docs++
		if wantRejected {
			rejected++
		}
		errPairs += len(want)
		if strings.Join(got, "\n") != strings.Join(want, "\n") || gotRejected != wantRejected {
			t.Errorf("%s: verdict differs from the server (rejected %v, want %v)\n got: %q\nwant: %q", name, gotRejected, wantRejected, got, want)
		}
	}
	eachServedCorpusCR(t, cat, func(name string, d *source.Document, v *engine.Version) {
		check(name, d, v, d.JSON)
		for _, m := range crMutations {
			var obj map[string]any
			if err := utiljson.Unmarshal(d.JSON, &obj); err != nil {
				t.Fatal(err)
			}
			if !m.edit(r, obj, v.Structural()) {
				continue
			}
			y := toYAML(t, obj)
			mf := source.Parse(name+"~"+m.name, y)
			if len(mf.Documents) != 1 {
				t.Fatalf("%s~%s: mutant did not parse: %v", name, m.name, mf.Findings)
			}
			check(name+"~"+m.name, mf.Documents[0], v, mf.Documents[0].JSON)
			mutantsN++
			perMutation[m.name]++
		}
	})
	keys := make([]string, 0, len(perMutation))
	for k := range perMutation {
		keys = append(keys, k+"="+strconv.Itoa(perMutation[k]))
	}
	sort.Strings(keys)
	fmt.Fprintf(os.Stderr, "differential CR corpus: %d documents (%d mutants: %s), %d rejected by the server, %d (field, message) errors and unknown-field warnings, %s\n",
		docs, mutantsN, strings.Join(keys, " "), rejected, errPairs, agreement(t))
}

// baseCRs are custom resources of testdata/base-crd.yaml, each breaking
// something the corpus mutants cannot reach generically.
var baseCRs = []struct{ name, yaml string }{
	{"valid", `spec: {color: red, replicas: 2, tags: [a, b], ports: [{port: 80}], labels: {a: b}}`},
	{"cel-rule-fails", `spec: {color: red, replicas: -1}`},
	{"enum", `spec: {color: purple}`},
	{"int32-range", `spec: {replicas: 3000000000}`},
	{"set-duplicate", `spec: {tags: [a, a, b, b]}`},
	{"map-duplicate-key", `spec: {ports: [{port: 80}, {port: 80, name: x}]}`},
	{"map-missing-key", `spec: {ports: [{name: x}]}`},
	{"max-items", `spec: {tags: [a, b, c, d, e, f, g, h, i, j, k]}`},
	{"max-length", `spec: {tags: [aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa]}`},
	{"embedded-without-apiVersion", `spec: {template: {kind: Pod, metadata: {name: x}}}`},
	{"embedded-bad-kind", `spec: {template: {apiVersion: v1, kind: "Not A Kind"}}`},
	{"embedded-metadata-unknown", `spec: {replicas: 1, template: {apiVersion: v1, kind: Pod, metadata: {name: x, bogus: 1}}}`},
	{"embedded-apiVersion-not-string", `spec: {template: {apiVersion: 1, kind: Pod}}`},
	{"embedded-namespace-invalid", `spec: {template: {apiVersion: v1, kind: Pod, metadata: {namespace: "Bad_NS"}}}`},
	{"unknown-fields", `spec: {replicas: 1, colour: red, ports: [{port: 80, extra: 1}], labels: {a: b}}
extra: 1`},
	{"metadata-unknown", `spec: {replicas: 1}`},
	{"status-dropped", `spec: {replicas: 1}
status: {phase: 1}`},
	{"cel-no-such-key", `spec: {}`},
	{"scale-replicas-string", `spec: {replicas: "three"}`},
	{"null-in-set", `spec: {tags: [a, null]}`},
	{"type-mismatch-and-cel", `spec: {color: 1, replicas: -1}`},
}

func TestDifferentialCRBase(t *testing.T) {
	b, err := os.ReadFile("testdata/base-crd.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cat := crd.NewCatalog(false)
	l := New(Options{Catalog: cat})
	collect(l, source.Parse("base-crd.yaml", b))
	gvk := schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}
	if _, err := cat.Lookup(gvk); err != nil {
		t.Fatalf("base CRD not served: %v", err)
	}
	o := newCROracle(t, decodedCRDs(t, "testdata/base-crd.yaml")[gvk.GroupKind()], "v1")
	rejected := 0
	for _, c := range baseCRs {
		t.Run(c.name, func(t *testing.T) {
			meta := "metadata: {name: w1, namespace: ns}\n"
			if c.name == "metadata-unknown" {
				meta = "metadata: {name: w1, namespace: ns, bogus: 1}\n"
			}
			y := "apiVersion: example.com/v1\nkind: Widget\n" + meta + c.yaml + "\n"
			f := source.Parse(c.name+".yaml", []byte(y))
			if len(f.Documents) != 1 {
				t.Fatalf("did not parse: %v", f.Findings)
			}
			d := f.Documents[0]
			want, wantRejected := o.create(d.JSON, "ns")
			fs := l.CR(d)
			got, gotRejected := crPairs(fs)
			if strings.Join(got, "\n") != strings.Join(want, "\n") || gotRejected != wantRejected {
				t.Errorf("verdict differs from the server (rejected %v, want %v)\n got: %q\nwant: %q", gotRejected, wantRejected, got, want)
			}
			accepted := map[string]bool{"valid": true, "status-dropped": true, "metadata-unknown": true, "unknown-fields": true, "embedded-metadata-unknown": true}
			if accepted[c.name] == wantRejected {
				t.Errorf("server verdict for %s: rejected = %v; the test case is wrong", c.name, wantRejected)
			}
			if wantRejected {
				rejected++
			}
			for _, fd := range fs {
				if fd.Line < 1 || fd.Column < 1 {
					t.Errorf("finding without position: %+v", fd)
				}
			}
		})
	}
	fmt.Fprintf(os.Stderr, "differential CR base mutants: %d documents, %d rejected by the server, %s\n", len(baseCRs), rejected, agreement(t))
}
