package config

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/lint"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// TestPreCommitFlow is the pre-commit scenario of issue #15 at the
// library level, as check will wire it: a hook run from the repository
// root with only the changed custom resource finds .crdlint.yaml, takes
// the CRDs from its crds:, and judges the custom resource against them
// (a schema error, not cr-no-crd); the kustomize patch stays excluded.
func TestPreCommitFlow(t *testing.T) {
	ar, err := txtar.ParseFile(filepath.Join("testdata", "precommit", "repo.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	for _, f := range ar.Files {
		p := filepath.Join(root, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(root)
	changed := []string{filepath.Join("config", "samples", "widget.yaml")}

	path, err := Find(".")
	if err != nil || path != ".crdlint.yaml" {
		t.Fatalf("Find = %q, %v", path, err)
	}
	c, problems, err := Load(path, lint.Rules)
	if err != nil || len(problems) > 0 {
		t.Fatalf("Load: %v %v", err, problems)
	}
	s, err := Resolve(c, Flags{})
	if err != nil {
		t.Fatal(err)
	}

	// What check does with the settings: CRDs from the sources, inputs
	// minus the excluded, then lint.
	var paths []string
	for _, src := range s.CRDs {
		paths = append(paths, src.Path)
	}
	crdFiles, err := source.Expand(paths)
	if err != nil {
		t.Fatal(err)
	}
	cat := crd.NewCatalog(false)
	l := lint.New(lint.Options{Catalog: cat, MissingCRDs: lint.Missing(s.MissingCRDs)})
	for _, p := range crdFiles {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		cat.AddFound(crd.FindCRDs(source.Parse(p, data)), crd.Input)
	}
	var findings []report.Finding
	for _, p := range changed {
		if s.Excluded(p, false) {
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		fs, _ := l.File(source.Parse(p, data))
		findings = append(findings, fs...)
	}
	var rules []string
	for _, f := range findings {
		if _, off := s.RuleSeverity(f.Rule, f.File); !off {
			rules = append(rules, f.Rule)
		}
	}
	if !slices.Equal(rules, []string{lint.RuleCRSchema}) {
		t.Errorf("findings %v, want one cr-schema (spec.size below its minimum), judged against the configured CRDs", findings)
	}
	if !s.Excluded(filepath.Join("config", "crd", "patches", "webhook_in_widgets.yaml"), false) {
		t.Error("the kustomize patch is not excluded")
	}
}
