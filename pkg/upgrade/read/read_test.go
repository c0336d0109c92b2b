package read

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/lint"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// textReviewer records the files reviewed, and keeps their findings
// unless drop.
type textReviewer struct {
	t        *testing.T
	reviewed []string
	drop     bool
}

func (r *textReviewer) Text(name string, text []byte, fs []report.Finding) []report.Finding {
	if text == nil {
		r.t.Errorf("%s reviewed without its text", name)
	}
	r.reviewed = append(r.reviewed, name)
	if r.drop {
		return nil
	}
	return fs
}

// TestCRDs: a revision's CRDs, each file reviewed once with its text and
// returned with it, and a revision without any CRD is an input error,
// unless reading it reported why (a finding the review kept).
func TestCRDs(t *testing.T) {
	l := lint.New(lint.Options{})
	var res report.Result
	rv := &textReviewer{t: t}
	crds, files, err := CRDs(context.Background(), filepath.Join("..", "..", "..", "examples", "upgrade", "widget-v1.yaml"), true, nil, l, rv, &res)
	if err != nil || len(crds) != 1 || crds[0].Def.Name() != "widgets.example.org" {
		t.Fatalf("got %d CRDs, %v; want widgets.example.org", len(crds), err)
	}
	if len(files) != 1 || files[0].Data == nil || len(rv.reviewed) != 1 || res.Summary.Files != 1 || res.Summary.CRDs != 1 {
		t.Errorf("got %d files, reviewed %v, summary %+v; want the file, with its text, reviewed and counted once", len(files), rv.reviewed, res.Summary)
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
		_, _, err = CRDs(context.Background(), dir, true, nil, l, rv, res)
		if !errors.As(err, &ie) || !strings.HasSuffix(err.Error(), ": no CustomResourceDefinition found") {
			t.Errorf("%s: got %v, want an input error: no CustomResourceDefinition found", name, err)
		}
	}

	// A CRD that cannot be decoded is no CRD, but its finding says why;
	// unless the review takes it out (its rule turned off). (It has a
	// group and names: without both it would be a partial CRD, skipped.)
	bad := t.TempDir()
	if err := os.WriteFile(filepath.Join(bad, "crd.yaml"), []byte("apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: as.example.com}\nspec: {group: example.com, names: {plural: as, kind: A}, versions: 3}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, drop := range []bool{false, true} {
		var res report.Result
		_, _, err := CRDs(context.Background(), bad, true, nil, l, &textReviewer{t: t, drop: drop}, &res)
		if got := errors.As(err, &ie); got != drop || len(res.Findings) == 0 == !drop {
			t.Errorf("review dropping %v: got %d findings, %v; want an input error only when the review dropped the finding", drop, len(res.Findings), err)
		}
	}
}
