package read

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

// TestCRDs: a revision's CRDs with each file reviewed once with its
// text, and a revision without any CRD is an input error.
func TestCRDs(t *testing.T) {
	l := lint.New(lint.Options{})
	var reviewed []string
	review := func(path string, data []byte, fs []report.Finding) []report.Finding {
		if data == nil {
			t.Errorf("%s reviewed without its text", path)
		}
		reviewed = append(reviewed, path)
		return fs
	}
	var res report.Result
	crds, err := CRDs(filepath.Join("..", "..", "..", "examples", "upgrade", "widget-v1.yaml"), nil, l, review, &res)
	if err != nil || len(crds) != 1 || crds[0].Def.Name() != "widgets.example.org" {
		t.Fatalf("got %d CRDs, %v; want widgets.example.org", len(crds), err)
	}
	if len(reviewed) != 1 || res.Summary.Files != 1 || res.Summary.CRDs != 1 {
		t.Errorf("got reviewed %v, summary %+v; want the file reviewed and counted once", reviewed, res.Summary)
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
		_, err = CRDs(dir, nil, l, review, res)
		if !errors.As(err, &ie) || !strings.HasSuffix(err.Error(), ": no CustomResourceDefinition found") {
			t.Errorf("%s: got %v, want an input error: no CustomResourceDefinition found", name, err)
		}
	}
}
