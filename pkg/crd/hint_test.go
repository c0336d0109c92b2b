package crd

import (
	"os"
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/testutil"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// hintMisses returns the kinds the parsed file's CRDs define that its
// Hint says it does not (or whose names.kind it does not count as
// nested): none, or the hint would hide a CRD.
func hintMisses(data []byte) []schema.GroupKind {
	h := ScanHint(data)
	var out []schema.GroupKind
	for _, fd := range FindCRDs(source.Parse("f.yaml", data)) {
		if fd.Def == nil || fd.Def.v1 == nil {
			continue
		}
		gk := schema.GroupKind{Group: fd.Def.v1.Spec.Group, Kind: fd.Def.v1.Spec.Names.Kind}
		// Duplicates need its kind among the nested ones too (but for
		// a CRD without group or kind, which the server rejects).
		if !h.May(gk) || !h.Opaque && gk.Group != "" && gk.Kind != "" && h.Nested[gk.Kind] == 0 {
			out = append(out, gk)
		}
	}
	return out
}

// TestHintCorpus: every CRD of the corpus is one its file's hint allows,
// and the hint is precise enough to be worth having: most files are not
// opaque, and a file allows none of the kinds of the other files' CRDs
// but those that share a group and kind word.
func TestHintCorpus(t *testing.T) {
	files := testutil.Files(t, "crds")
	opaque, crds := 0, 0
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if miss := hintMisses(data); len(miss) > 0 {
			t.Errorf("%s: the hint hides %v", p, miss)
		}
		if ScanHint(data).Opaque {
			opaque++
		}
		crds++
	}
	t.Logf("%d CRD files, %d opaque", crds, opaque)
	if opaque*4 > crds {
		t.Errorf("%d of %d files opaque: the hint saves nothing", opaque, crds)
	}
}

func TestHint(t *testing.T) {
	crd := func(body string) string {
		return "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.example.com\n" + body
	}
	gk := schema.GroupKind{Group: "example.com", Kind: "Widget"}
	for _, tc := range []struct {
		name, text  string
		may, opaque bool
	}{
		{"block", crd("spec:\n  group: example.com\n  names:\n    kind: Widget\n"), true, false},
		{"comment after value", crd("spec:\n  group: example.com # the group\n  names:\n    kind: Widget\n"), true, false},
		{"other group", crd("spec:\n  group: x1.example.com\n  names:\n    kind: Widget\n"), false, false},
		{"other kind", crd("spec:\n  group: example.com\n  names:\n    kind: Gadget\n"), false, false},
		{"quoted", crd("spec:\n  group: \"example.com\"\n  names:\n    kind: 'Widget'\n"), true, false},
		{"flow", crd("spec: {group: example.com, names: {kind: Widget, plural: widgets}}\n"), true, false},
		{"json", `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","spec":{"group":"example.com","names":{"kind":"Widget"}}}`, true, false},
		{"anchor", crd("spec:\n  group: &g example.com\n  names:\n    kind: Widget\n"), true, false},
		{"schema property named group", crd("spec:\n  group: example.com\n  names:\n    kind: Widget\n  x:\n    group:\n      type: string\n    kind:\n    - a\n"), true, false},
		{"alias", crd("x: &g example.com\nspec:\n  group: *g\n  names:\n    kind: Widget\n"), true, true},
		{"tag", crd("spec:\n  group: !!str example.com\n  names:\n    kind: Widget\n"), true, true},
		{"escape", crd("spec:\n  group: \"ex\\x61mple.com\"\n  names:\n    kind: Widget\n"), true, true},
		{"escaped key", crd("spec:\n  \"gr\\u006fup\": example.com\n  names:\n    kind: Widget\n"), true, true},
		{"block scalar", crd("spec:\n  group: >-\n    example.com\n  names:\n    kind: Widget\n"), true, true},
		{"value below key", crd("spec:\n  group:\n    example.com\n  names:\n    kind: Widget\n"), true, true},
		{"plain continued", crd("spec:\n  group: exam\n    ple.com\n  names:\n    kind: Widget\n"), true, true},
		{"explicit key", crd("spec:\n  ? group\n  : example.com\n  names:\n    kind: Widget\n"), true, true},
		{"multi-line single quotes", crd("spec:\n  group: 'example\n    .com'\n  names:\n    kind: Widget\n"), true, true},
		{"regexp escape in a pattern", crd("spec:\n  group: example.com\n  names:\n    kind: Widget\n  x:\n    pattern: ^[A-Za-z0-9!#$%&'*+\\-.^_\\x60|~]+$\n"), true, false},
		{"escaped key letter", crd("spec:\n  group: example.com\n  names:\n    \"\\x6bind\": Gadget\n"), true, true},
		{"names.kind under a merge key", crd("x: &n {kind: Widget, plural: widgets}\nspec:\n  group: example.com\n  names:\n    <<: *n\n"), true, false},
		{"json on lines", `{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
  "spec": {
    "group": "example.com",
    "names": {
      "kind": "Widget"
    }
  }
}`, true, true},
		{"flow on one line with quoted brackets", crd("spec: {group: example.com, names: {kind: Widget, plural: \"]}\"}}\n"), true, false},
		{"question in prose", crd("spec:\n  group: example.com\n  names:\n    kind: Widget\n  description: is it? yes\n"), true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := ScanHint([]byte(tc.text))
			if h.Opaque != tc.opaque || h.May(gk) != tc.may {
				t.Errorf("opaque %t, may %t; want %t, %t (%+v)", h.Opaque, h.May(gk), tc.opaque, tc.may, h)
			}
			if miss := hintMisses([]byte(tc.text)); len(miss) > 0 {
				t.Errorf("the hint hides %v", miss)
			}
		})
	}
}

// TestHintNested: the top-level kind of a block document is not a
// nested kind, so two CRD files of different groups do not share.
func TestHintNested(t *testing.T) {
	a := ScanHint([]byte("kind: CustomResourceDefinition\nspec:\n  group: a.example.com\n  names:\n    kind: Widget\n"))
	b := ScanHint([]byte("kind: CustomResourceDefinition\nspec:\n  group: a.example.com\n  names:\n    kind: Gadget\n"))
	c := ScanHint([]byte("kind: CustomResourceDefinition\nspec:\n  group: b.example.com\n  names:\n    kind: Widget\n"))
	if a.Nested["CustomResourceDefinition"] != 0 || a.Nested["Widget"] != 1 {
		t.Errorf("nested %v", a.Nested)
	}
	if a.share(b) || a.share(c) || !a.share(a) {
		t.Errorf("share: a,b %t a,c %t a,a %t", a.share(b), a.share(c), a.share(a))
	}
	// A CEL rule's continuation line starting "&&" is no anchor: the
	// refinement of nested kinds holds.
	cel := ScanHint([]byte("kind: CustomResourceDefinition\nspec:\n  group: a.example.com\n  names:\n    kind: Widget\n  x:\n    rule: has(self.a)\n      && !has(self.b)\n    y:\n      kind: Gadget\n"))
	if cel.merges || cel.Nested["Gadget"] != 0 {
		t.Errorf("merges %t, nested %v", cel.merges, cel.Nested)
	}
	anchors := ScanHint([]byte("x: &n {kind: Widget}\nkind: CustomResourceDefinition\nspec:\n  group: a.example.com\n  names: *n\n  y:\n    kind: Gadget\n"))
	if !anchors.merges || anchors.Nested["Gadget"] == 0 {
		t.Errorf("with an alias: merges %t, nested %v", anchors.merges, anchors.Nested)
	}
	two := ScanHint([]byte("spec:\n  group: a.example.com\n  names:\n    kind: Widget\n---\nspec:\n  group: a.example.com\n  names:\n    kind: Widget\n"))
	if !two.selfDuplicate() || a.selfDuplicate() {
		t.Errorf("selfDuplicate: two %t, a %t", two.selfDuplicate(), a.selfDuplicate())
	}
}

// FuzzHint: whatever the text, no CRD the parser finds is one its hint
// says the file does not define.
func FuzzHint(f *testing.F) {
	seeds, _ := filepath.Glob("../lint/testdata/rules/*/*.yaml")
	for _, p := range testutil.Files(f, "crds") {
		if st, err := os.Stat(p); err == nil && st.Size() < 20_000 {
			seeds = append(seeds, p)
		}
	}
	for _, p := range seeds {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec: {group, names: {kind: W}}\n"))
	f.Add([]byte("ApiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if miss := hintMisses(data); len(miss) > 0 {
			t.Fatalf("the hint hides %v", miss)
		}
	})
}

// BenchmarkScanHint reads the hint of every corpus CRD file: what a run
// pays per --crd file it does not parse.
func BenchmarkScanHint(b *testing.B) {
	var texts [][]byte
	size := 0
	for _, p := range testutil.Files(b, "crds") {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		texts, size = append(texts, data), size+len(data)
	}
	b.SetBytes(int64(size))
	b.ResetTimer()
	for range b.N {
		for _, t := range texts {
			ScanHint(t)
		}
	}
}
