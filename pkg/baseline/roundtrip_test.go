package baseline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/lint"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// check lints one file with the real linter, as check does.
func check(t *testing.T, file string) []report.Finding {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	cat := crd.NewCatalog(false)
	l := lint.New(lint.Options{Catalog: cat})
	f := source.Parse(file, data)
	cat.AddFound(crd.FindCRDs(f), crd.Input)
	fs, _ := l.File(f)
	return fs
}

// edit rewrites file with one replacement, which must apply.
func edit(t *testing.T, file, old, new string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), old) {
		t.Fatalf("%s does not contain %q", file, old)
	}
	if err := os.WriteFile(file, []byte(strings.Replace(string(data), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRoundTrip is the workflow of issue #15 with the real linter: write
// a baseline, edit an unrelated line (no new findings), add a real
// problem (exactly one new), fix a baselined one (reported stale).
func TestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(filepath.Join("testdata", "roundtrip", "widgets.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	file := filepath.Join("manifests", "widgets.yaml")
	if err := os.MkdirAll("manifests", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}

	// 1. Write the baseline: two empty objects and an unknown field.
	first := check(t, file)
	if len(first) != 3 {
		t.Fatalf("the fixture has %d findings, want 3: %v", len(first), first)
	}
	b, err := New(".crdlint-baseline.yaml", first, "v0.4.0")
	if err != nil {
		t.Fatal(err)
	}
	if err := b.WriteFile(); err != nil {
		t.Fatal(err)
	}
	read := func() *Baseline {
		b, err := Read(".crdlint-baseline.yaml")
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if fresh, baselined, stale := read().Match(first); len(fresh) != 0 || len(baselined) != 3 || len(stale) != 0 {
		t.Fatalf("right after writing: fresh %d, baselined %d, stale %d", len(fresh), len(baselined), len(stale))
	}

	// 2. An unrelated edit that moves every line: nothing new, nothing stale.
	edit(t, file, "metadata:\n  name: widgets.example.com\n", "metadata:\n  name: widgets.example.com\n  labels:\n    team: widgets\n    tier: core\n")
	edit(t, file, "apiVersion: apiextensions", "# Widgets, owned by the widget team.\n\napiVersion: apiextensions")
	moved := check(t, file)
	if moved[0].Line == first[0].Line {
		t.Fatal("the edit did not move the findings")
	}
	if fresh, _, stale := read().Match(moved); len(fresh) != 0 || len(stale) != 0 {
		t.Errorf("after an unrelated edit: fresh %v, stale %v", fresh, stale)
	}

	// 3. A real problem: exactly one new finding.
	edit(t, file, "                size:\n", "                labels:\n                  type: object\n                size:\n")
	fresh, _, stale := read().Match(check(t, file))
	if len(fresh) != 1 || fresh[0].Rule != lint.RuleCRDEmptyObject || !strings.HasSuffix(fresh[0].Field, "properties[labels]") || len(stale) != 0 {
		t.Errorf("after adding a problem: fresh %v, stale %v; want one crd-empty-object at properties[labels]", fresh, stale)
	}

	// 4. Fix a baselined one: its entry is stale.
	edit(t, file, "                settings:\n                  type: object\n", "                settings:\n                  type: object\n                  x-kubernetes-preserve-unknown-fields: true\n")
	fresh, _, stale = read().Match(check(t, file))
	if len(fresh) != 1 || len(stale) != 1 || !strings.HasSuffix(stale[0].Field, "properties[settings]") {
		t.Errorf("after a fix: fresh %v, stale %v; want labels fresh and settings stale", fresh, stale)
	}
}
