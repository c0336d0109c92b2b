package bench

import (
	"bytes"
	"testing"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/testutil"
)

// TestBuildMixed: the same corpus and options give the same bytes; the
// workload has what it is for (bundles with CRDs, files that only mention
// them, the objects it counts); a changed build differs from the unchanged
// one by ChangedLine at the top of Changed files, and nothing else.
func TestBuildMixed(t *testing.T) {
	c, err := LoadCorpus(testutil.CorpusDir(t))
	if err != nil {
		t.Fatal(err)
	}
	o := DefaultMixed()
	o.Files = 60
	o.BundlePercent = 20
	a, st := BuildMixed(c, o)
	b, _ := BuildMixed(c, o)
	if len(a) != o.Files || st.Files != o.Files {
		t.Fatalf("%d files (stats %d), want %d", len(a), st.Files, o.Files)
	}
	docs := 0
	for i := range a {
		if a[i].Name != b[i].Name || !bytes.Equal(a[i].Data, b[i].Data) {
			t.Fatalf("file %d differs between two builds with the same seed", i)
		}
		d, err := splitDocs(a[i].Data)
		if err != nil {
			t.Fatalf("%s: %v", a[i].Name, err)
		}
		docs += len(d)
	}
	if docs != st.Docs || docs < o.Files*o.DocsPerFile {
		t.Errorf("%d objects, stats say %d, want at least %d", docs, st.Docs, o.Files*o.DocsPerFile)
	}
	if st.Bundles == 0 {
		t.Errorf("no bundle among %d files at %d%%", o.Files, o.BundlePercent)
	}
	bundles, mentions := 0, 0
	for _, f := range a {
		switch {
		case bytes.Contains(f.Data, []byte("kind: CustomResourceDefinition")):
			bundles++
		case bytes.Contains(f.Data, crdWord):
			mentions++
		}
	}
	if bundles != st.Bundles || mentions != st.Mentions {
		t.Errorf("%d bundles and %d files that mention CRDs, stats say %d and %d", bundles, mentions, st.Bundles, st.Mentions)
	}

	o.Changed = 5
	ch, cst := BuildMixed(c, o)
	if cst.Changed != 5 {
		t.Errorf("stats say %d changed, want 5", cst.Changed)
	}
	n := 0
	for i := range ch {
		if bytes.Equal(ch[i].Data, a[i].Data) {
			continue
		}
		n++
		if !bytes.Equal(bytes.TrimPrefix(ch[i].Data, []byte(ChangedLine)), a[i].Data) {
			t.Errorf("%s: changed by more than %q", ch[i].Name, ChangedLine)
		}
	}
	if n != 5 {
		t.Errorf("%d files changed, want 5", n)
	}
}
