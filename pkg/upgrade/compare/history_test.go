package compare

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/version"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/crdtest"
)

var (
	update      = flag.Bool("update", false, "rewrite the golden files of pkg/upgrade/compare from the current output")
	historyDump = flag.String("history-dump", "", "write every history pair's changes as JSON into this directory")
)

const historyDir = "testdata/history"

// historyPair is two consecutive releases of one CRD.
type historyPair struct {
	name     string // project/crd old..new
	old, new *crdtest.File
}

// historyCRDs lists testdata/history/<project>/<crd>/ directories, sorted.
func historyCRDs(tb testing.TB) []string {
	tb.Helper()
	dirs, err := filepath.Glob(filepath.Join(historyDir, "*", "*"))
	if err != nil {
		tb.Fatal(err)
	}
	var out []string
	for _, d := range dirs {
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			out = append(out, d)
		}
	}
	if len(out) < 30 {
		tb.Fatalf("%s holds %d CRD histories, want at least 30: is the test data there?", historyDir, len(out))
	}
	sort.Strings(out)
	return out
}

// releases reads one CRD's releases, oldest first (tags sorted as
// versions).
func releases(tb testing.TB, dir string) []*crdtest.File {
	tb.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		tb.Fatal(err)
	}
	tag := func(f string) *version.Version {
		v, err := version.ParseGeneric(strings.TrimSuffix(filepath.Base(f), ".yaml"))
		if err != nil {
			tb.Fatalf("%s: file name is not a release tag: %v", f, err)
		}
		return v
	}
	slices.SortFunc(files, func(a, b string) int {
		c, err := tag(a).Compare(tag(b).String())
		if err != nil {
			tb.Fatal(err)
		}
		return c
	})
	if len(files) < 2 {
		tb.Fatalf("%s: %d releases, want at least 2", dir, len(files))
	}
	out := make([]*crdtest.File, len(files))
	for i, f := range files {
		out[i] = crdtest.Read(tb, f)
		if got, want := out[i].CRD.Name, filepath.Base(dir); got != want {
			tb.Fatalf("%s: CRD %s in the directory of %s", f, got, want)
		}
	}
	return out
}

func historyPairs(tb testing.TB) []historyPair {
	tb.Helper()
	var out []historyPair
	for _, dir := range historyCRDs(tb) {
		rs := releases(tb, dir)
		rel, _ := filepath.Rel(historyDir, dir)
		for i := 1; i < len(rs); i++ {
			tagOf := func(f *crdtest.File) string { return strings.TrimSuffix(filepath.Base(f.Path), ".yaml") }
			out = append(out, historyPair{name: rel + " " + tagOf(rs[i-1]) + ".." + tagOf(rs[i]), old: rs[i-1], new: rs[i]})
		}
	}
	return out
}

// TestHistory compares every pair of consecutive releases in
// testdata/history and checks the invariants: each release compared with
// itself reports nothing, every change's path exists in the CRD it names,
// each change carries its rule's severity. The counts per rule and per
// pair are the golden file testdata/history/counts.golden.
func TestHistory(t *testing.T) {
	pairs := historyPairs(t)
	total := map[string]int{}
	var lines []string
	exact, inexact := 0, 0
	for _, p := range pairs {
		if cs := Revisions(p.old.CRD, p.old.CRD.DeepCopy(), Options{}); len(cs) != 0 {
			t.Errorf("%s: comparing %s with itself: %d changes, first %+v", p.name, p.old.Path, len(cs), cs[0])
		}
		cs := Revisions(p.old.CRD, p.new.CRD, Options{})
		checkPaths(t, p.old, p.new, cs)
		per := map[string]int{}
		for _, c := range cs {
			if c.Severity != severity[c.Rule] || c.Severity == 0 {
				t.Errorf("%s: %s has severity %v", p.name, c.Rule, c.Severity)
			}
			per[c.Rule]++
			total[c.Rule]++
			doc := p.new.Doc
			if c.InOld {
				doc = p.old.Doc
			}
			if _, ok := doc.Locate(c.Path); ok {
				exact++
			} else {
				inexact++
			}
		}
		lines = append(lines, p.name+": "+countLine(per))
		if *historyDump != "" {
			b, _ := json.MarshalIndent(cs, "", "  ")
			name := strings.NewReplacer("/", "__", " ", "__").Replace(p.name) + ".json"
			if err := os.WriteFile(filepath.Join(*historyDump, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if cs := Revisions(pairs[len(pairs)-1].new.CRD, pairs[len(pairs)-1].new.CRD.DeepCopy(), Options{}); len(cs) != 0 {
		t.Errorf("newest release compared with itself: %d changes", len(cs))
	}
	n := 0
	for _, v := range total {
		n += v
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# go test ./pkg/upgrade/compare -run TestHistory -update\n")
	fmt.Fprintf(&b, "# %d pairs of consecutive releases, %d changes; paths found in the files: %d exactly, %d at an ancestor (fields the server's defaulting adds)\n", len(pairs), n, exact, inexact)
	fmt.Fprintf(&b, "total: %s\n\n", countLine(total))
	for _, l := range lines {
		b.WriteString(l + "\n")
	}
	golden(t, filepath.Join(historyDir, "counts.golden"), b.String())
	t.Logf("%d pairs, %d changes, %d positioned exactly in the files, %d at an ancestor", len(pairs), n, exact, inexact)
}

// countLine renders counts per rule sorted by rule: "rule=n, ...", or
// "none".
func countLine(m map[string]int) string {
	if len(m) == 0 {
		return "none"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%d", strings.TrimPrefix(k, "upgrade-"), m[k])
	}
	return strings.Join(parts, " ")
}

// golden compares got with a golden file, or rewrites it under -update.
func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from the output (go test ./pkg/upgrade/compare -update to accept):\n%s", path, lineDiff(string(want), got))
	}
}

// lineDiff lists the lines only in want (-) or only in got (+).
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for _, l := range w {
		if !slices.Contains(g, l) {
			b.WriteString("- " + l + "\n")
		}
	}
	for _, l := range g {
		if !slices.Contains(w, l) {
			b.WriteString("+ " + l + "\n")
		}
	}
	return b.String()
}
