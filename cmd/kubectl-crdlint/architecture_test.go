package main

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// TestArchitectureMap keeps docs/architecture.md's "Every package" table
// true: every package of the module has its row, no row names a package
// that is gone, and the rows are in import order (a package's non-test
// code imports only packages whose rows come later), so that the map can
// be read top to bottom as the code depends. The map drifted before this
// test existed; a new package now fails here until it is placed.
func TestArchitectureMap(t *testing.T) {
	doc, err := os.ReadFile("../../docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	section := string(doc)
	if i := strings.Index(section, "## Every package"); i >= 0 {
		section = section[i:]
	} else {
		t.Fatal(`docs/architecture.md has no "## Every package" section`)
	}
	if i := strings.Index(section[1:], "\n## "); i >= 0 {
		section = section[:i+1]
	}
	// A row's first cell names one package or several, each in backquotes.
	row := regexp.MustCompile("(?m)^\\| ([^|]+) \\|")
	name := regexp.MustCompile("`([^`]+)`")
	rank := map[string]int{}
	for i, m := range row.FindAllStringSubmatch(section, -1) {
		for _, n := range name.FindAllStringSubmatch(m[1], -1) {
			rank[n[1]] = i
		}
	}
	if len(rank) == 0 {
		t.Fatal("the package table has no rows")
	}

	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, "../../...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	const module = "github.com/kubectl-crdlint/kubectl-crdlint/"
	listed := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		pkg := strings.TrimPrefix(f[0], module)
		listed[pkg] = true
		r, ok := rank[pkg]
		if !ok {
			t.Errorf("package %s has no row in docs/architecture.md's package table", pkg)
			continue
		}
		for _, imp := range f[1:] {
			dep, ours := strings.CutPrefix(imp, module)
			if !ours {
				continue
			}
			if d, ok := rank[dep]; ok && d <= r {
				t.Errorf("%s imports %s, whose row is not below it: move one of the rows", pkg, dep)
			}
		}
	}
	for pkg := range rank {
		if !listed[pkg] {
			t.Errorf("docs/architecture.md's package table names %s, which is no package of the module", pkg)
		}
	}
}
