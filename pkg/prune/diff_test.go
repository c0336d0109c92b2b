package prune

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	yaml "go.yaml.in/yaml/v3"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/testutil"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/engine"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/lint"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// serverPrune is the oracle: the server's decoding steps for a custom
// resource (unstructuredSchemaCoercer.apply), called directly.
func serverPrune(obj map[string]any, s *structuralschema.Structural) ([]string, error) {
	u := &unstructured.Unstructured{Object: obj}
	kind, apiVersion := u.GetKind(), u.GetAPIVersion()
	meta, found, unknown, err := schemaobjectmeta.GetObjectMetaWithOptions(obj, schemaobjectmeta.ObjectMetaOptions{ReturnUnknownFieldPaths: true})
	if err != nil {
		return nil, err
	}
	unknown = append(unknown, structuralpruning.PruneWithOptions(obj, s, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})...)
	structuraldefaulting.PruneNonNullableNullsWithoutDefaults(obj, s)
	ferr, paths := schemaobjectmeta.CoerceWithOptions(nil, obj, s, false, schemaobjectmeta.CoerceOptions{ReturnUnknownFieldPaths: true})
	if ferr != nil {
		return nil, ferr
	}
	unknown = append(unknown, paths...)
	u.SetKind(kind)
	u.SetAPIVersion(apiVersion)
	if found {
		if err := schemaobjectmeta.SetObjectMeta(obj, meta); err != nil {
			return nil, err
		}
	}
	return unknown, nil
}

// inject adds unknown fields at random depths of obj, and one in each
// kind of place that prunes differently when the object has one: objects
// the schema specifies, inside preserve-unknown-fields subtrees, embedded
// resources' metadata and additionalProperties maps. It returns the kinds
// it hit.
func inject(r *rand.Rand, obj map[string]any, s *structuralschema.Structural, n int) []string {
	type place struct {
		m    map[string]any
		kind string
	}
	var places []place
	type frame struct {
		v      any
		s      *structuralschema.Structural
		kind   string
		isMeta bool
		root   bool
	}
	stack := []frame{{obj, s, "schema", false, true}}
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch v := f.v.(type) {
		case map[string]any:
			kind := f.kind
			switch {
			case f.isMeta:
				kind = "embedded-metadata"
			case f.s != nil && f.s.XPreserveUnknownFields:
				kind = "preserve-unknown-fields"
			case f.s != nil && f.s.AdditionalProperties != nil && len(f.s.Properties) == 0:
				kind = "additionalProperties"
			}
			if !f.root {
				places = append(places, place{v, kind})
			}
			if f.s != nil && f.s.XEmbeddedResource && !f.root && v["metadata"] == nil {
				// Give an embedded resource metadata to inject into.
				v["metadata"] = map[string]any{"name": "embedded"}
			}
			for _, k := range sortedKeys(v) {
				var cs *structuralschema.Structural
				child := kind
				if f.s != nil {
					if p, ok := f.s.Properties[k]; ok {
						cs = &p
					} else if f.s.AdditionalProperties != nil {
						cs = f.s.AdditionalProperties.Structural
					}
				}
				if kind == "embedded-metadata" || (f.s == nil && kind == "preserve-unknown-fields") {
					child = kind
				} else if cs != nil {
					child = "schema"
				}
				if f.s == nil || (cs == nil && f.s.XPreserveUnknownFields) {
					child = "preserve-unknown-fields"
				}
				isMeta := k == "metadata" && f.s != nil && f.s.XEmbeddedResource && !f.root
				stack = append(stack, frame{v[k], cs, child, isMeta, false})
			}
		case []any:
			var is *structuralschema.Structural
			if f.s != nil {
				is = f.s.Items
			}
			for _, item := range v {
				stack = append(stack, frame{item, is, f.kind, false, false})
			}
		}
	}
	var hit []string
	add := func(p place, i int) {
		p.m["crdlintInjected"+strconv.Itoa(i)] = map[string]any{"nested": int64(i), "list": []any{"x"}}
		hit = append(hit, p.kind)
	}
	i := 0
	done := map[string]bool{}
	for _, p := range places {
		if p.kind != "schema" && !done[p.kind] {
			done[p.kind] = true
			add(p, i)
			i++
		}
	}
	for ; i < n && len(places) > 0; i++ {
		add(places[r.Intn(len(places))], i)
	}
	return hit
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// commented renders obj as block YAML with a head comment on every key
// naming its path, so a test can tell which comments survive.
func commented(obj any, path string) *yaml.Node {
	switch v := obj.(type) {
	case map[string]any:
		n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		for _, k := range sortedKeys(v) {
			p := k
			if path != "" {
				p = path + "." + k
			}
			kn := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: k, HeadComment: "# c:" + p}
			n.Content = append(n.Content, kn, commented(v[k], p))
		}
		return n
	case []any:
		n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		for i, item := range v {
			n.Content = append(n.Content, commented(item, path+"["+strconv.Itoa(i)+"]"))
		}
		return n
	}
	var n yaml.Node
	_ = n.Encode(obj)
	return &n
}

var corpus struct {
	once sync.Once
	cat  *crd.Catalog
	docs []*source.Document
}

func loadCorpus(t testing.TB) {
	crds := testutil.Files(t, "crds")
	crs := testutil.Files(t, "crs")
	corpus.once.Do(func() {
		corpus.cat = crd.NewCatalog(false)
		for _, p := range crds {
			b, _ := os.ReadFile(p)
			corpus.cat.AddFound(crd.FindCRDs(source.Parse(p, b)), crd.Input)
		}
		// The corpus has no embedded resources: the lint tests' base CRD
		// has one (spec.template), and a preserve-unknown-fields subtree.
		base, _ := os.ReadFile("../lint/testdata/base-crd.yaml")
		corpus.cat.AddFound(crd.FindCRDs(source.Parse("base-crd.yaml", base)), crd.Input)
		widget := []byte("apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w, namespace: ns}\n" +
			"spec: {replicas: 1, labels: {a: b}, ports: [{port: 80}], template: {apiVersion: v1, kind: Pod, metadata: {name: p, labels: {x: y}}, spec: {containers: [{name: c}]}}}\n")
		for i := 0; i < 20; i++ {
			corpus.docs = append(corpus.docs, source.Parse(fmt.Sprintf("widget-%d.yaml", i), widget).Documents[0])
		}
		for _, p := range crs {
			b, _ := os.ReadFile(p)
			for _, d := range source.Parse(p, b).Documents {
				if crd.IsCRD(d) || crd.IsBuiltin(d) {
					continue
				}
				if v, err := lookup(d); err == nil && v.Structural() != nil {
					corpus.docs = append(corpus.docs, d)
				}
			}
		}
	})
}

func lookup(d *source.Document) (*engine.Version, error) {
	return corpus.cat.Lookup(crd.GVK(d))
}

// checkOne injects unknown fields into a corpus document, renders it with
// a comment on every key, prunes the text and compares with the server.
// injected counts the places checkOne injected fields into, by kind.
var injected = map[string]int{}

func checkOne(t testing.TB, d *source.Document, seed int64) (dropped int) {
	v, _ := lookup(d)
	r := rand.New(rand.NewSource(seed))
	var obj map[string]any
	if err := utiljson.Unmarshal(d.JSON, &obj); err != nil {
		t.Fatal(err)
	}
	for _, k := range inject(r, obj, v.Structural(), 1+r.Intn(4)) {
		injected[k]++
	}
	y, err := yaml.Marshal(commented(obj, ""))
	if err != nil {
		t.Fatal(err)
	}
	f := source.Parse("doc.yaml", y)
	if len(f.Documents) != 1 {
		t.Fatalf("seed %d: rendered document does not parse: %v", seed, f.Findings)
	}
	doc := f.Documents[0]

	var want map[string]any
	_ = utiljson.Unmarshal(doc.JSON, &want)
	wantDropped, err := serverPrune(want, v.Structural())
	if err != nil {
		return 0 // a decode error: nothing to prune (check reports it)
	}
	var got map[string]any
	_ = utiljson.Unmarshal(doc.JSON, &got)
	gotDropped, err := v.Prune(got, false)
	if err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	if !equalJSON(got, want) || strings.Join(gotDropped, ",") != strings.Join(wantDropped, ",") {
		t.Fatalf("seed %d %s: pruned object differs from the server's\n got %v %s\nwant %v %s", seed, d.File, gotDropped, mustJSON(got), wantDropped, mustJSON(want))
	}
	out, err := Rewrite(source.Parse("doc.yaml", y), y, []Doc{{Document: doc, Object: got}})
	if err != nil {
		t.Fatalf("seed %d %s: rewrite: %v\n%s", seed, d.File, err, y)
	}
	// Comments of kept keys survive; those of pruned keys go with them.
	for _, p := range gotDropped {
		if bytes.Contains(out, []byte("# c:"+p+"\n")) {
			t.Fatalf("seed %d: comment of pruned %s survived", seed, p)
		}
	}
	kept := 0
	for _, line := range strings.Split(string(y), "\n") {
		c := strings.TrimSpace(line)
		if !strings.HasPrefix(c, "# c:") {
			continue
		}
		p := strings.TrimPrefix(c, "# c:")
		if !hasPath(got, source.ParsePath(p)) {
			continue // pruned, or a null the server drops silently
		}
		kept++
		if !bytes.Contains(out, []byte(c+"\n")) {
			t.Fatalf("seed %d: comment of kept key %s lost", seed, p)
		}
	}
	// The dropped paths are check's unknown-field warnings.
	l := lint.New(lint.Options{Catalog: corpus.cat})
	var warned []string
	for _, fd := range l.CR(doc) {
		if fd.Rule == lint.RuleUnknownField {
			warned = append(warned, fd.Field)
		}
	}
	sort.Strings(warned)
	sorted := append([]string(nil), gotDropped...)
	sort.Strings(sorted)
	if strings.Join(warned, ",") != strings.Join(sorted, ",") {
		t.Fatalf("seed %d: check warns %v, prune drops %v", seed, warned, sorted)
	}
	return len(gotDropped)
}

// hasPath reports whether the object still has the field at the path;
// names are tried joined with the following ones for keys with dots.
func hasPath(o any, segs []source.Segment) bool {
	if len(segs) == 0 {
		return true
	}
	switch v := o.(type) {
	case map[string]any:
		name := ""
		for i, s := range segs {
			if s.Bracket && i > 0 {
				break
			}
			if i > 0 {
				name += "."
			}
			name += s.Name
			if x, ok := v[name]; ok && hasPath(x, segs[i+1:]) {
				return true
			}
		}
	case []any:
		i, err := strconv.Atoi(segs[0].Name)
		return err == nil && segs[0].Bracket && i < len(v) && hasPath(v[i], segs[1:])
	}
	return false
}

func TestDifferentialPruneCorpus(t *testing.T) {
	loadCorpus(t)
	total := 0
	for i, d := range corpus.docs {
		total += checkOne(t, d, int64(i))
	}
	if len(corpus.docs) < testutil.AtLeast(t, 1000, 500) || total < len(corpus.docs) {
		t.Fatalf("only %d documents and %d pruned fields", len(corpus.docs), total)
	}
	for _, k := range []string{"schema", "preserve-unknown-fields", "embedded-metadata", "additionalProperties"} {
		if injected[k] == 0 {
			t.Errorf("no field was injected into a place of kind %s", k)
		}
	}
	fmt.Fprintf(os.Stderr, "differential prune corpus: %d documents, fields injected by place %v, %d fields pruned; pruned objects, dropped paths, check's unknown-field warnings and kept comments all agree with the server\n", len(corpus.docs), injected, total)
}

// FuzzRewrite prunes random corpus documents with random injected fields:
// the rewritten text decodes to the server's pruned object, comments of
// kept keys survive, and the dropped paths are check's warnings.
func FuzzRewrite(f *testing.F) {
	loadCorpus(f)
	for i := int64(0); i < 8; i++ {
		f.Add(i, uint16(i*97))
	}
	f.Fuzz(func(t *testing.T, seed int64, which uint16) {
		if len(corpus.docs) == 0 {
			t.Skip("no corpus")
		}
		checkOne(t, corpus.docs[int(which)%len(corpus.docs)], seed)
	})
}

// TestRewriteCorpusFiles prunes every corpus file as written (its own
// layout, comments, block scalars, duplicates), with all its documents at
// once: Rewrite must succeed, and its own check guarantees the result.
func TestRewriteCorpusFiles(t *testing.T) {
	loadCorpus(t)
	files, changed := 0, 0
	for _, p := range testutil.Files(t, "crs") {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		f := source.Parse(p, data)
		var docs []Doc
		for _, d := range f.Documents {
			v, err := lookup(d)
			if err != nil || crd.IsCRD(d) || crd.IsBuiltin(d) {
				continue
			}
			var obj map[string]any
			if utiljson.Unmarshal(d.JSON, &obj) != nil {
				continue
			}
			if _, err := v.Prune(obj, true); err != nil {
				continue
			}
			docs = append(docs, Doc{Document: d, Object: obj})
		}
		if len(docs) == 0 {
			continue
		}
		out, err := Rewrite(source.Parse(p, data), data, docs)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		files++
		if !bytes.Equal(out, data) {
			changed++
		}
	}
	fmt.Fprintf(os.Stderr, "prune of corpus files as written (with --defaults): %d files rewritten and verified, %d changed\n", files, changed)
}
