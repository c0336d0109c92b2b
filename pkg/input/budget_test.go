package input

import (
	"context"
	"path/filepath"
	"reflect"
	"sort"
	"sync"
	"testing"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/count"
	"github.com/kubectl-crdlint/kubectl-crdlint/internal/testutil"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/fieldvalidation"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/lint"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
)

// TestVersionBudgetChangesNothing checks the corpus's custom resources
// against its CRDs (given as --crd, so that they are collected shed) with
// the catalogue's default budget of compiled versions and with a budget
// that keeps only the version in use, which compiles a version again
// almost every time a document needs another kind: the findings must be
// the same.
func TestVersionBudgetChangesNothing(t *testing.T) {
	corpus := testutil.CorpusDir(t)
	findings := func(budget int64) ([]report.Finding, count.Snapshot) {
		in, err := Open([]string{filepath.Join(corpus, "crs")}, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		extra := crdSet(t, filepath.Join(corpus, "crds"))
		cat := crd.NewCatalog(true)
		if budget > 0 {
			cat.SetVersionBudget(budget)
		}
		run := NewRun(in, extra, cat)
		l := lint.New(lint.Options{Validate: fieldvalidation.Strict, Catalog: cat})
		var mu sync.Mutex
		var out []report.Finding
		before := count.Now()
		judge, err := run.CollectAll(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		err = judge.Parallel(context.Background(), func(i int) error {
			x, err := judge.Input(i)
			if err != nil || x.Skipped != "" {
				return err
			}
			fs, _ := l.File(x.File)
			mu.Lock()
			out = append(out, fs...)
			mu.Unlock()
			return nil
		})
		if err == nil {
			err = run.Done()
		}
		if err != nil {
			t.Fatal(err)
		}
		sort.Slice(out, func(i, j int) bool {
			a, b := out[i], out[j]
			if a.File != b.File {
				return a.File < b.File
			}
			if a.Document != b.Document {
				return a.Document < b.Document
			}
			if a.Line != b.Line {
				return a.Line < b.Line
			}
			if a.Column != b.Column {
				return a.Column < b.Column
			}
			if a.Field != b.Field {
				return a.Field < b.Field
			}
			if a.Rule != b.Rule {
				return a.Rule < b.Rule
			}
			return a.Message < b.Message
		})
		return out, count.Now().Sub(before)
	}
	want, roomy := findings(0)
	got, tight := findings(1)
	if len(want) < testutil.AtLeast(t, 1000, 100) {
		t.Fatalf("too little exercised: %d findings", len(want))
	}
	if tight.VersionCompiles <= roomy.VersionCompiles {
		t.Fatalf("a budget of one byte compiled %d versions, the default %d: nothing was let go", tight.VersionCompiles, roomy.VersionCompiles)
	}
	if !reflect.DeepEqual(got, want) {
		n := 0
		for i := 0; i < len(got) && i < len(want) && n < 5; i++ {
			if got[i] != want[i] {
				t.Errorf("finding %d: got %+v, want %+v", i, got[i], want[i])
				n++
			}
		}
		t.Fatalf("%d findings with the tight budget, %d with the default", len(got), len(want))
	}
	t.Logf("%d findings; %d versions compiled with the default budget, %d with one byte", len(want), roomy.VersionCompiles, tight.VersionCompiles)
}
