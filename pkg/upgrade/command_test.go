package upgrade

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/lint"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/upgrade/compare"
)

// passPrefix names the fixtures of a rule's directory that show its fix:
// they must not produce the rule, where every other fixture must.
const passPrefix = "pass-"

const (
	replayDir = "testdata/replay"
	// rulesDir holds the comparison's rule fixtures, which
	// compare.TestRuleFixtures checks against the comparison's output.
	rulesDir = "testdata/rules"
)

// commandFindings runs a fixture (OLD, NEW, then the existing objects) as
// `kubectl crdlint upgrade old.yaml new.yaml objects.yaml` runs it:
// CRDs, Judge, the replay of the objects' file and Report, with the
// command's default linter. crdFindings are those of reading OLD and NEW
// (a CRD the server refuses); all are every finding the command reports.
func commandFindings(t *testing.T, path string) (crdFindings, all []report.Finding) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var docs []string
	var cur []string
	for _, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		if l == "---" {
			docs = append(docs, strings.Join(cur, "\n")+"\n")
			cur = nil
			continue
		}
		cur = append(cur, l)
	}
	docs = append(docs, strings.Join(cur, "\n")+"\n")
	if len(docs) < 2 {
		t.Fatalf("%s: want OLD and NEW documents", path)
	}
	l := lint.New(lint.Options{})
	read := func(name, text string) []CRD {
		crds, fs, _ := FileCRDs(source.Parse(name, []byte(text)), l, name == "old.yaml")
		crdFindings = append(crdFindings, fs...)
		return crds
	}
	oldCRDs, newCRDs := read("old.yaml", docs[0]), read("new.yaml", docs[1])
	all = append(all, crdFindings...)
	pairs, fs := Judge(l, oldCRDs, newCRDs, JudgeOptions{})
	all = append(all, fs...)
	if len(docs) > 2 {
		fs, _ := pairs.File(source.Parse("objects.yaml", []byte(strings.Join(docs[2:], "---\n"))))
		all = append(all, fs...)
	}
	changes, _ := pairs.Report()
	return crdFindings, append(all, changes...)
}

// checkCommand holds a fixture of rule's directory to what its name
// promises, run as the command runs it: a failing fixture reports the
// rule; a passing one is an upgrade the command lets through (OLD and NEW
// valid CRDs, no error) without the rule, so that its page shows a fix
// that works.
func checkCommand(t *testing.T, rule, path string) {
	t.Helper()
	crdFindings, all := commandFindings(t, path)
	reported := slices.ContainsFunc(all, func(f report.Finding) bool { return f.Rule == rule })
	if !strings.HasPrefix(filepath.Base(path), passPrefix) {
		if !reported {
			t.Errorf("kubectl crdlint upgrade reports no %s: %v", rule, all)
		}
		return
	}
	for _, f := range crdFindings {
		t.Errorf("a passing fixture must hold valid CRDs: %s:%d: %s %s: %s", f.File, f.Line, f.Rule, f.Field, f.Message)
	}
	for _, f := range all {
		if f.Rule == rule || f.Severity == report.Error {
			t.Errorf("the passing fixture reports %s %s at %s:%d: %s", f.Severity, f.Rule, f.File, f.Line, f.Message)
		}
	}
}

// TestRuleFixtures runs the comparison's rule fixtures,
// testdata/rules/<rule-id>/<case>.yaml (OLD, NEW, then existing
// objects), as the command runs them: each reports its directory's rule,
// but pass-*.yaml, an upgrade of valid CRDs that reports neither it nor
// any error, so that a rule's page shows a fix that works. The directory
// "none" is the comparison's alone.
func TestRuleFixtures(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join(rulesDir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, dir := range dirs {
		rule := filepath.Base(dir)
		if rule == "none" {
			continue
		}
		if !changeRule[rule] {
			t.Errorf("%s: no comparison rule %s", dir, rule)
			continue
		}
		files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
		for _, path := range files {
			ran++
			t.Run(rule+"/"+strings.TrimSuffix(filepath.Base(path), ".yaml"), func(t *testing.T) {
				checkCommand(t, rule, path)
			})
		}
	}
	if ran < 2*len(compare.Rules) {
		t.Errorf("ran %d fixtures under %s, want a failing and a passing one for each of %d rules", ran, rulesDir, len(compare.Rules))
	}
}

// TestReplayFixtures: testdata/replay/<rule-id>/<case>.yaml holds OLD, NEW
// and the objects that exist; each fixture reports its directory's rule,
// but pass-*.yaml, which shows the fix and reports neither it nor any
// error. The rules are the replay's and pairing's.
func TestReplayFixtures(t *testing.T) {
	rules := slices.DeleteFunc(slices.Clone(Rules), func(r report.Rule) bool { return changeRule[r.ID] })
	known := map[string]bool{}
	for _, r := range rules {
		known[r.ID] = true
	}
	dirs, err := filepath.Glob(filepath.Join(replayDir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	failing, passing := map[string]bool{}, map[string]bool{}
	for _, dir := range dirs {
		rule := filepath.Base(dir)
		if !known[rule] {
			t.Errorf("%s: no replay or pairing rule %s in Rules", dir, rule)
			continue
		}
		files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
		for _, path := range files {
			if strings.HasPrefix(filepath.Base(path), passPrefix) {
				passing[rule] = true
			} else {
				failing[rule] = true
			}
			t.Run(rule+"/"+strings.TrimSuffix(filepath.Base(path), ".yaml"), func(t *testing.T) {
				checkCommand(t, rule, path)
			})
		}
	}
	for _, r := range rules {
		if !failing[r.ID] || !passing[r.ID] {
			t.Errorf("rule %s: want a failing and a %s*.yaml fixture under %s/%s", r.ID, passPrefix, replayDir, r.ID)
		}
	}
}
