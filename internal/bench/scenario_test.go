package bench

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/testutil"
	"k8s.io/apimachinery/pkg/util/validation"
)

func TestBuildTouch(t *testing.T) {
	base := Options{Seed: 5, Docs: 4000, Files: 400, InvalidPercent: 10}
	plain, _ := Build(testTemplates(), base)
	for _, pct := range []int{1, 100} {
		t.Run(fmt.Sprint(pct, "%"), func(t *testing.T) {
			o := base
			o.TouchPercent = pct
			a, st := Build(testTemplates(), o)
			b, _ := Build(testTemplates(), o)
			for i := range a {
				if !bytes.Equal(a[i].Data, b[i].Data) {
					t.Fatalf("file %d differs between two builds with the same seed", i)
				}
			}
			want := 400 * pct / 100
			if st.Touched != want {
				t.Errorf("stats say %d files touched, want %d", st.Touched, want)
			}
			changed := 0
			for i := range a {
				if a[i].Name != plain[i].Name {
					t.Fatalf("file %d: name %s, untouched build %s", i, a[i].Name, plain[i].Name)
				}
				if bytes.Equal(a[i].Data, plain[i].Data) {
					if bytes.Contains(a[i].Data, []byte(TouchLabel)) {
						t.Errorf("file %d has the label and the untouched build's bytes", i)
					}
					continue
				}
				changed++
				// Every document, and only the label: removing it gives
				// the untouched bytes back.
				docs := bytes.Count(a[i].Data, []byte("\n---\n")) + 1
				if n := bytes.Count(a[i].Data, []byte(TouchLabel+`: "1"`)); n != docs {
					t.Errorf("file %d: %d of %d documents touched", i, n, docs)
				}
				back := strings.ReplaceAll(string(a[i].Data), "    "+TouchLabel+": \"1\"\n", "")
				if back != string(plain[i].Data) {
					t.Errorf("file %d: the touch changed more than the label", i)
				}
			}
			if changed != want {
				t.Errorf("%d files changed, want %d", changed, want)
			}
		})
	}
}

func TestExpandCRDs(t *testing.T) {
	c, err := LoadCorpus(testutil.CorpusDir(t))
	if err != nil {
		t.Fatal(err)
	}
	a, n, err := ExpandCRDs(c.CRDFiles, 1000)
	if err != nil {
		t.Fatal(err)
	}
	b, _, _ := ExpandCRDs(c.CRDFiles, 1000)
	if len(a) != len(b) {
		t.Fatalf("two expansions made %d and %d files", len(a), len(b))
	}
	for i := range a {
		if a[i].Name != b[i].Name || !bytes.Equal(a[i].Data, b[i].Data) {
			t.Fatalf("file %d differs between two expansions", i)
		}
	}
	if n != 1000 {
		t.Errorf("%d CRDs, want 1000", n)
	}
	for i, f := range c.CRDFiles {
		if a[i].Name != f.Name || !bytes.Equal(a[i].Data, f.Data) {
			t.Fatalf("corpus file %s is not kept as it is", f.Name)
		}
	}
	seenName, seenFile, crds := map[string]bool{}, map[string]bool{}, 0
	for i, f := range a {
		if seenFile[f.Name] {
			t.Fatalf("file name %s used twice", f.Name)
		}
		seenFile[f.Name] = true
		docs, err := splitDocs(f.Data)
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		for _, d := range docs {
			if d["kind"] != "CustomResourceDefinition" {
				continue
			}
			crds++
			spec := d["spec"].(map[string]any)
			group := spec["group"].(string)
			plural := spec["names"].(map[string]any)["plural"].(string)
			name := d["metadata"].(map[string]any)["name"].(string)
			if name != plural+"."+group {
				t.Errorf("%s: metadata.name %s, want %s.%s", f.Name, name, plural, group)
			}
			if errs := validation.IsDNS1123Subdomain(group); len(errs) > 0 {
				t.Errorf("%s: group %s: %v", f.Name, group, errs)
			}
			// The corpus has CRDs twice; a copy must clash with none.
			if seenName[name] && i >= len(c.CRDFiles) {
				t.Errorf("CRD %s defined twice", name)
			}
			seenName[name] = true
		}
	}
	if crds != 1000 {
		t.Errorf("files hold %d CRDs, want 1000", crds)
	}
}

// TestCacheStates checks the cache directories the scenarios hand crdlint:
// a cold run must find nothing a previous run wrote, and a snapshot run
// must find the snapshot and nothing the run before it added.
func TestCacheStates(t *testing.T) {
	root := t.TempDir()
	write := func(p, data string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	args := func(before func() ([]string, error)) string {
		t.Helper()
		a, err := before()
		if err != nil {
			t.Fatal(err)
		}
		if len(a) != 2 || a[0] != "--cache-dir" {
			t.Fatalf("arguments %q, want --cache-dir DIR", a)
		}
		return a[1]
	}

	cold := coldCache(filepath.Join(root, "cold"))
	dir := args(cold)
	write(filepath.Join(dir, "verdicts", "x"), "left by a run")
	if n, _ := dirSize(args(cold)); n != 0 {
		t.Error("a cold run's cache directory holds what the previous run wrote")
	}

	snap := filepath.Join(root, "snap")
	write(filepath.Join(snap, "verdicts", "a"), "primed")
	run := snapshotCache(snap, filepath.Join(root, "run"))
	dir = args(run)
	write(filepath.Join(dir, "verdicts", "b"), "added by a measured run")
	dir = args(run)
	if b, err := os.ReadFile(filepath.Join(dir, "verdicts", "a")); err != nil || string(b) != "primed" {
		t.Errorf("the snapshot's entry: %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "verdicts", "b")); !os.IsNotExist(err) {
		t.Errorf("a snapshot run finds what the run before it wrote (stat: %v)", err)
	}
	if n, _ := dirSize(snap); n != 1 {
		t.Errorf("the snapshot itself changed: %d files", n)
	}

	kept := filepath.Join(root, "kept")
	if dir = args(keptCache(kept)); dir != kept {
		t.Errorf("warm runs get %s, want the shared %s", dir, kept)
	}
}
