package bench

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/testutil"
)

func testTemplates() []map[string]any {
	return []map[string]any{
		{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": map[string]any{"name": "w"},
			"spec": map[string]any{"color": "red", "size": map[string]any{"unit": "cm"}}},
		{"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": map[string]any{"generateName": "g-"},
			"spec": map[string]any{"mode": "fast"}},
		{"apiVersion": "example.com/v1", "kind": "Bare"},
	}
}

func countDocs(files []NamedFile) int {
	n := 0
	for _, f := range files {
		n += bytes.Count(f.Data, []byte("\n---\n")) + 1
	}
	return n
}

func TestBuild(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    Options
	}{
		{"default size", Options{Seed: 1, Docs: 10000, Files: 400, InvalidPercent: 10}},
		{"uneven split", Options{Seed: 7, Docs: 1003, Files: 10, InvalidPercent: 50}},
		{"more files than docs", Options{Seed: 3, Docs: 5, Files: 9}},
		{"all mutated", Options{Seed: 2, Docs: 300, Files: 3, InvalidPercent: 100}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, st := Build(testTemplates(), tc.o)
			b, _ := Build(testTemplates(), tc.o)
			if len(a) != len(b) {
				t.Fatalf("two builds made %d and %d files", len(a), len(b))
			}
			for i := range a {
				if a[i].Name != b[i].Name || !bytes.Equal(a[i].Data, b[i].Data) {
					t.Fatalf("file %d differs between two builds with the same seed", i)
				}
			}
			wantFiles := min(tc.o.Files, tc.o.Docs)
			if st.Docs != tc.o.Docs || st.Files != wantFiles || len(a) != wantFiles {
				t.Errorf("stats %+v, %d files; want %d docs in %d files", st, len(a), tc.o.Docs, wantFiles)
			}
			if got := countDocs(a); got != tc.o.Docs {
				t.Errorf("files hold %d documents, want %d", got, tc.o.Docs)
			}
			mutated := 0
			for _, n := range st.Mutations {
				mutated += n
			}
			if tc.o.InvalidPercent == 100 && mutated != tc.o.Docs {
				t.Errorf("%d of %d documents mutated at 100%%", mutated, tc.o.Docs)
			}
			if tc.o.InvalidPercent == 0 && mutated != 0 {
				t.Errorf("%d documents mutated at 0%%", mutated)
			}
		})
	}
}

func TestBuildSeedMatters(t *testing.T) {
	o := Options{Seed: 1, Docs: 200, Files: 4, InvalidPercent: 20}
	a, _ := Build(testTemplates(), o)
	o.Seed = 2
	b, _ := Build(testTemplates(), o)
	same := true
	for i := range a {
		same = same && bytes.Equal(a[i].Data, b[i].Data)
	}
	if same {
		t.Error("different seeds made the same workload: the variations are not seeded")
	}
}

func TestBuildNamesUnique(t *testing.T) {
	files, _ := Build(testTemplates(), Options{Seed: 1, Docs: 90, Files: 3})
	seen := map[string]bool{}
	for _, f := range files {
		for _, line := range strings.Split(string(f.Data), "\n") {
			if name, ok := strings.CutPrefix(line, "  name: "); ok {
				if seen[name] {
					t.Fatalf("name %s used twice", name)
				}
				seen[name] = true
			}
		}
	}
	if len(seen) != 90 {
		t.Errorf("%d distinct names, want 90", len(seen))
	}
}

// TestCorpusWorkload checks that the default workload meets the issue's
// minimum size from the real corpus: at least 10,000 documents in at least
// 300 files, and that every corpus CRD is kept.
func TestCorpusWorkload(t *testing.T) {
	c, err := LoadCorpus(testutil.CorpusDir(t))
	if err != nil {
		t.Fatal(err)
	}
	if c.CRDs < testutil.AtLeast(t, 100, 40) || len(c.Templates) < testutil.AtLeast(t, 1000, 500) {
		t.Fatalf("corpus gave %d CRDs and %d templates: expected the whole corpus", c.CRDs, len(c.Templates))
	}
	o := DefaultOptions(1)
	files, st := Build(c.Templates, o)
	t.Logf("%d CRD files (%d CRDs), %d templates; 1×: %d docs in %d files, mutations %v", len(c.CRDFiles), c.CRDs, len(c.Templates), st.Docs, len(files), st.Mutations)
	if st.Docs < 10000 || len(files) < 300 {
		t.Errorf("default workload: %d docs in %d files, want at least 10,000 in 300", st.Docs, len(files))
	}
	for k := 2; k <= 4; k *= 2 {
		if s := DefaultOptions(k); s.Docs != k*o.Docs || s.Files != k*o.Files {
			t.Errorf("scale %d: %+v is not %d× %+v", k, s, k, o)
		}
	}
}
