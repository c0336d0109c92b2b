package crd

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/testutil"
)

// deferredFiles are the corpus CRD files plus copies that make
// duplicates: one with a changed description (a duplicate of different
// content), one unchanged under another name (the same content: not a
// duplicate), one under another group (another kind), and a file
// defining its kind twice.
func deferredFiles(t *testing.T) (names []string, texts [][]byte) {
	for _, p := range testutil.Files(t, "crds") {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		names, texts = append(names, filepath.Base(p)), append(texts, data)
	}
	var picked []int
	for i, d := range texts {
		if bytes.Count(d, []byte("kind: CustomResourceDefinition")) == 1 && bytes.Contains(d, []byte("\n  group: ")) && len(picked) < 6 {
			picked = append(picked, i)
		}
	}
	if len(picked) < 6 {
		t.Fatalf("only %d corpus CRDs to copy", len(picked))
	}
	add := func(name string, data []byte) { names, texts = append(names, name), append(texts, data) }
	add("changed.yaml", bytes.Replace(texts[picked[0]], []byte("\n  group: "), []byte("\n  # changed\n  preserveUnknownFields: false\n  group: "), 1))
	add("same.yaml", texts[picked[1]])
	g := bytes.Index(texts[picked[2]], []byte("\n  group: ")) + len("\n  group: ")
	add("regrouped.yaml", append(append(bytes.Clone(texts[picked[2]][:g]), "x1."...), texts[picked[2]][g:]...))
	twice := bytes.Replace(texts[picked[3]], []byte("\n  group: "), []byte("\n  preserveUnknownFields: false\n  group: "), 1)
	add("twice.yaml", append(append(bytes.Clone(texts[picked[3]]), "\n---\n"...), twice...))
	// A file a lookup reads for another kind that redefines a kind of
	// an earlier file.
	add("bundle.yaml", append(append(bytes.Clone(texts[picked[4]]), "\n---\n"...), bytes.Replace(texts[picked[5]], []byte("\n  group: "), []byte("\n  preserveUnknownFields: false\n  group: "), 1)...))
	return names, texts
}

func loadText(name string, data []byte) ([]Loaded, error) {
	return parseCRDs(name, data), nil
}

// identity and entry are what a catalogue answers for gk.
func identity(c *Catalog, gk schema.GroupKind) string {
	id, ok := c.Identity(gk)
	return fmt.Sprintf("%s %t", id, ok)
}

func entry(c *Catalog, gk schema.GroupKind) string {
	if e := c.Entry(gk); e != nil {
		return e.Source + " " + e.CRD().Name
	}
	return "none"
}

func duplicates(c *Catalog) []string {
	var out []string
	for _, d := range c.Duplicates() {
		out = append(out, d.Kept.Source+" over "+d.Dropped.Source+" ("+d.Why()+")")
	}
	sort.Strings(out)
	return out
}

// TestDeferredEqualsEager: a catalogue that reads its files when a
// lookup may need them answers every lookup, identity and duplicate as
// one that read them all first, whatever kinds are looked up in whatever
// order, and reads fewer files.
func TestDeferredEqualsEager(t *testing.T) {
	names, texts := deferredFiles(t)
	eager := NewCatalog(false)
	var kinds []schema.GroupKind
	for i := range names {
		ls, _ := loadText(names[i], texts[i])
		for _, l := range ls {
			if l.Def.v1 != nil {
				kinds = append(kinds, schema.GroupKind{Group: l.Def.v1.Spec.Group, Kind: l.Def.v1.Spec.Names.Kind})
			}
			eager.Add(l.Def, l.Source, Extra)
		}
	}
	// An input file redefines the kinds of a --crd file.
	addInput := func(c *Catalog) {
		ls, _ := loadText("input.yaml", texts[len(texts)-1])
		for _, l := range ls {
			c.Add(l.Def, l.Source, Input)
		}
	}
	addInput(eager)
	kinds = append(kinds, schema.GroupKind{Group: "example.com", Kind: "Nothing"}, schema.GroupKind{Kind: "Widget"})
	wantID, wantEntry := map[schema.GroupKind]string{}, map[schema.GroupKind]string{}
	for _, gk := range kinds {
		wantID[gk], wantEntry[gk] = identity(eager, gk), entry(eager, gk)
	}
	indexes := make([]*Index, len(names))
	for i := range names {
		ls, _ := loadText(names[i], texts[i])
		indexes[i] = IndexOf(ls)
	}
	wantDups := duplicates(eager)
	if len(wantDups) < 3 {
		t.Fatalf("the test files make %d duplicates, want at least 3: %v", len(wantDups), wantDups)
	}
	rng := rand.New(rand.NewSource(1))
	for round := 0; round < 16; round++ {
		// Rounds 8 to 15 know the index of a random half of the files, as
		// a run after one that read them does.
		lazy := NewCatalog(false)
		var files []lazyFile
		indexed := map[int]bool{}
		for i := range names {
			name, data := names[i], texts[i]
			f := lazyFile{Hint: ScanHint(data), Load: func() ([]Loaded, error) { return loadText(name, data) }}
			if round >= 8 && rng.Intn(2) == 0 {
				f.Index, indexed[i] = indexes[i], true
			}
			files = append(files, f)
		}
		ds := lazy.deferLazy(Extra, files)
		addInput(lazy)
		// Name every kind: an indexed file is not read for it (and the
		// others are, for the kinds they may define).
		for _, gk := range kinds {
			if round < 8 {
				break
			}
			if got := identity(lazy, gk); got != wantID[gk] {
				t.Fatalf("round %d, %v: identity %q, want %q", round, gk, got, wantID[gk])
			}
		}
		for i := range indexed {
			if ds[i].Done() {
				t.Fatalf("round %d: naming the kinds read indexed file %s", round, names[i])
			}
		}
		// Look up a random part of the kinds, in random order; round 0
		// looks up none.
		order := rng.Perm(len(kinds))[:round%8*len(kinds)/8]
		for _, k := range order {
			gk := kinds[k]
			if got := entry(lazy, gk); got != wantEntry[gk] {
				t.Fatalf("round %d, %v: entry %q, want %q", round, gk, got, wantEntry[gk])
			}
			if got := identity(lazy, gk); got != wantID[gk] {
				t.Fatalf("round %d, %v: identity %q after reading, want %q", round, gk, got, wantID[gk])
			}
		}
		read := 0
		for _, d := range ds {
			if d.Done() {
				read++
			}
		}
		if got := duplicates(lazy); strings.Join(got, "\n") != strings.Join(wantDups, "\n") {
			t.Fatalf("round %d: duplicates\n%s\nwant\n%s", round, strings.Join(got, "\n"), strings.Join(wantDups, "\n"))
		}
		if round < 4 && read == len(ds) {
			t.Errorf("round %d: every file read for %d lookups", round, len(order))
		}
		dupRead := 0
		for _, d := range ds {
			if d.Done() {
				dupRead++
			}
		}
		if round < 4 && dupRead == len(ds) {
			t.Errorf("round %d: every file read for the duplicates", round)
		}
		t.Logf("round %d: %d lookups read %d of %d files, and the duplicates %d", round, len(order), read, len(ds), dupRead)
	}

	// A run keeps each file's index as it reads it, and again with the
	// digests of the decoded CRDs Duplicates compared; the run after it
	// names the kinds it looked up and finds every duplicate without
	// reading a file.
	kept := make([]*Index, len(names))
	run := func() (*Catalog, []*Deferred) {
		c := NewCatalog(false)
		var files []lazyFile
		for i := range names {
			i, name, data := i, names[i], texts[i]
			files = append(files, lazyFile{Hint: ScanHint(data), Index: kept[i], Load: func() ([]Loaded, error) { return loadText(name, data) }, Keep: func(x *Index) { kept[i] = x }})
		}
		ds := c.deferLazy(Extra, files)
		addInput(c)
		return c, ds
	}
	first, firstDs := run()
	looked := kinds[:len(kinds)/2]
	for _, gk := range looked {
		first.Entry(gk)
	}
	if got := duplicates(first); strings.Join(got, "\n") != strings.Join(wantDups, "\n") {
		t.Fatalf("first run: duplicates\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(wantDups, "\n"))
	}
	for i, d := range firstDs {
		if d.Done() != (kept[i] != nil) {
			t.Errorf("first run: %s read %t, its index kept %t", names[i], d.Done(), kept[i] != nil)
		}
	}
	second, ds := run()
	for _, gk := range looked {
		if got := identity(second, gk); got != wantID[gk] {
			t.Fatalf("second run, %v: identity %q, want %q", gk, got, wantID[gk])
		}
	}
	if got := duplicates(second); strings.Join(got, "\n") != strings.Join(wantDups, "\n") {
		t.Fatalf("second run: duplicates\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(wantDups, "\n"))
	}
	for i, d := range ds {
		if d.Done() {
			t.Errorf("the second run read %s", names[i])
		}
	}
}

// TestDeferredConcurrent: lookups of many kinds at once read each file
// once and answer as one at a time would (run with -race by .ci/run).
func TestDeferredConcurrent(t *testing.T) {
	names, texts := deferredFiles(t)
	var kinds []schema.GroupKind
	for i := range names {
		ls, _ := loadText(names[i], texts[i])
		for _, l := range ls {
			if l.Def.v1 != nil {
				kinds = append(kinds, schema.GroupKind{Group: l.Def.v1.Spec.Group, Kind: l.Def.v1.Spec.Names.Kind})
			}
		}
	}
	build := func(indexed bool) (*Catalog, *[]int) {
		c := NewCatalog(false)
		reads := make([]int, len(names))
		var files []lazyFile
		for i := range names {
			i, name, data := i, names[i], texts[i]
			f := lazyFile{Hint: ScanHint(data), Load: func() ([]Loaded, error) { reads[i]++; return loadText(name, data) }, Keep: func(*Index) {}}
			if indexed && i%2 == 0 {
				ls, _ := loadText(name, data)
				f.Index = IndexOf(ls)
			}
			files = append(files, f)
		}
		c.deferLazy(Extra, files)
		return c, &reads
	}
	for _, indexed := range []bool{false, true} {
		one, _ := build(indexed)
		want := map[schema.GroupKind]string{}
		for _, gk := range kinds {
			want[gk] = identity(one, gk) + " " + entry(one, gk)
		}
		many, reads := build(indexed)
		var wg sync.WaitGroup
		got := make([]string, len(kinds))
		for k, gk := range kinds {
			wg.Add(1)
			go func() {
				defer wg.Done()
				got[k] = identity(many, gk) + " " + entry(many, gk)
			}()
		}
		wg.Wait()
		for k, gk := range kinds {
			if got[k] != want[gk] {
				t.Errorf("indexed %t, %v: %q, want %q", indexed, gk, got[k], want[gk])
			}
		}
		for i, n := range *reads {
			if n > 1 {
				t.Errorf("%s read %d times", names[i], n)
			}
		}
		if strings.Join(duplicates(many), "\n") != strings.Join(duplicates(one), "\n") {
			t.Errorf("indexed %t: duplicates differ", indexed)
		}
	}
}
