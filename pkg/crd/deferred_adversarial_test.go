package crd

import (
	"reflect"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// buildCats is a catalogue that reads files in order and one that
// defers them.
func buildCats(t *testing.T, files map[string]string, order []string, index bool) (eager, lazy *Catalog) {
	eager, lazy = NewCatalog(false), NewCatalog(false)
	var lz []lazyFile
	for _, n := range order {
		data := []byte(files[n])
		name := n
		ls, _ := loadText(name, data)
		for _, l := range ls {
			eager.Add(l.Def, l.Source, Extra)
		}
		lz = append(lz, lazyFile{Hint: ScanHint(data), Load: func() ([]Loaded, error) { return loadText(name, data) }})
	}
	lazy.deferLazy(Extra, lz)
	return
}

// TestDeferredAdversarial: files whose hint must be opaque (a flow
// value on the next line, JSON without indentation) answer lookups,
// identities and duplicates as reading every file first does.
func TestDeferredAdversarial(t *testing.T) {
	gk := schema.GroupKind{Group: "example.com", Kind: "Widget"}
	block := "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.example.com\nspec:\n  group: example.com\n  scope: Namespaced\n  names:\n    kind: Widget\n    plural: widgets\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n        type: object\n"
	flowNext := "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: widgets.example.com}\nspec: {group:\n  example.com, scope: Cluster, names: {kind: Widget, plural: widgets}, versions: [{name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}]}\n"
	json0 := "{\n\"apiVersion\": \"apiextensions.k8s.io/v1\",\n\"kind\": \"CustomResourceDefinition\",\n\"metadata\": {\n\"name\": \"widgets.example.com\"\n},\n\"spec\": {\n\"group\": \"example.com\",\n\"scope\": \"Cluster\",\n\"names\": {\n\"kind\": \"Widget\",\n\"plural\": \"widgets\"\n},\n\"versions\": [{\"name\": \"v1\", \"served\": true, \"storage\": true, \"schema\": {\"openAPIV3Schema\": {\"type\": \"object\"}}}]\n}\n}\n"
	for _, tc := range []struct {
		name  string
		files map[string]string
		order []string
	}{
		{"lookup: flow value on next line", map[string]string{"a.yaml": flowNext}, []string{"a.yaml"}},
		{"lookup: block then flow (later wins)", map[string]string{"a.yaml": block, "b.yaml": flowNext}, []string{"a.yaml", "b.yaml"}},
		{"duplicates: block + json indent 0", map[string]string{"a.yaml": block, "b.json": json0}, []string{"a.yaml", "b.json"}},
	} {
		eager, lazy := buildCats(t, tc.files, tc.order, false)
		// Duplicates first (no lookup), then lookups.
		if e, l := duplicates(eager), duplicates(lazy); len(e) != len(l) {
			t.Errorf("%s: duplicates eager %v lazy %v", tc.name, e, l)
		}
		if e, l := entry(eager, gk), entry(lazy, gk); e != l {
			t.Errorf("%s: entry eager %q lazy %q", tc.name, e, l)
		}
		if e, l := identity(eager, gk), identity(lazy, gk); e != l {
			t.Errorf("%s: identity eager %q lazy %q", tc.name, e, l)
		}
	}
}

// TestDeepDigestTime: a time's location is digested by name, so that
// the runtime loading time.Local's zone data changes no digest.
func TestDeepDigestTime(t *testing.T) {
	var a, b metav1.Time
	if err := a.UnmarshalJSON([]byte(`"2020-01-01T00:00:00Z"`)); err != nil {
		t.Fatal(err)
	}
	b = a
	d1 := deepDigest(&a)
	_ = time.Now().Format(time.RFC3339) // initialises time.Local's zone data
	d2 := deepDigest(&b)
	t.Logf("DeepEqual %v, digests equal %v (loc %p)", reflect.DeepEqual(&a, &b), d1 == d2, a.Location())
	if reflect.DeepEqual(&a, &b) != (d1 == d2) {
		t.Errorf("deepDigest disagrees with DeepEqual for a metav1.Time once time.Local is initialised")
	}
}

// TestDeferredEmptyGroup: a CRD without group (or without spec) still
// answers its kind, and two of them are duplicates.
func TestDeferredEmptyGroup(t *testing.T) {
	nogroup := "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets\nspec:\n  scope: Namespaced\n  names:\n    kind: Widget\n    plural: widgets\n  versions:\n  - name: v1\n    served: true\n    storage: true\n"
	gk := schema.GroupKind{Kind: "Widget"}
	eager, lazy := buildCats(t, map[string]string{"a.yaml": nogroup}, []string{"a.yaml"}, false)
	if e, l := entry(eager, gk), entry(lazy, gk); e != l {
		t.Errorf("core-group kind: entry eager %q lazy %q", e, l)
	}
	nospec1 := "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: a\n"
	nospec2 := "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: b\n"
	eager, lazy = buildCats(t, map[string]string{"a.yaml": nospec1, "b.yaml": nospec2}, []string{"a.yaml", "b.yaml"}, false)
	if e, l := duplicates(eager), duplicates(lazy); len(e) != len(l) {
		t.Errorf("spec-less CRDs: duplicates eager %v lazy %v", e, l)
	}
}
