package upgrade

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/lint"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// TestReadCRDs: a revision's CRDs, each file returned once with its text
// for the caller to review, and a revision without any CRD is an input
// error.
func TestReadCRDs(t *testing.T) {
	l := lint.New(lint.Options{})
	var res report.Result
	crds, files, err := ReadCRDs(filepath.Join("..", "..", "examples", "upgrade", "widget-v1.yaml"), nil, l, &res)
	if err != nil || len(crds) != 1 || crds[0].Def.Name() != "widgets.example.org" {
		t.Fatalf("got %d CRDs, %v; want widgets.example.org", len(crds), err)
	}
	if len(files) != 1 || files[0].Data == nil || res.Summary.Files != 1 || res.Summary.CRDs != 1 {
		t.Errorf("got %d files (%+v), summary %+v; want the file, with its text, counted once", len(files), files, res.Summary)
	}

	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "cm.yaml"), []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var ie *source.InputError
	// res holds what came before (NEW's findings, the configuration's):
	// they do not excuse this revision for having no CRD.
	before := report.Result{Findings: []report.Finding{{Rule: "config-invalid", Severity: report.Error}}, Summary: report.Summary{Errors: 1}}
	for name, res := range map[string]*report.Result{"empty": {}, "after other findings": &before} {
		_, _, err = ReadCRDs(dir, nil, l, res)
		if !errors.As(err, &ie) || !strings.HasSuffix(err.Error(), ": no CustomResourceDefinition found") {
			t.Errorf("%s: got %v, want an input error: no CustomResourceDefinition found", name, err)
		}
	}
}
