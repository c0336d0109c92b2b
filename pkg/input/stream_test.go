package input

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/testutil"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/lint"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// TestStreamEqualsWhole: judging files a document at a time, on several
// goroutines, in pieces counted from 0 and rebased in order, finds
// exactly what judging each file whole does, over the corpus.
func TestStreamEqualsWhole(t *testing.T) {
	corpus := testutil.CorpusDir(t)
	run := func(stream bool) []string {
		in, err := Open([]string{corpus}, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		cat := crd.NewCatalog(false)
		r := NewRun(in, nil, cat)
		l := lint.New(lint.Options{Catalog: cat})
		found := make([][]report.Finding, len(in.Files))
		r.Documents = stream
		col := r.Collect()
		err = Parallel(context.Background(), len(in.Files), func(i int) error {
			x, err := col.Input(i)
			if x == nil {
				return err
			}
			for fs, err := range x.CRDs() {
				if err != nil {
					return err
				}
				for _, f := range fs {
					found[i] = append(found[i], l.CRD(f.Doc, f.Def)...)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		judge := col.Done()
		err = judge.Parallel(context.Background(), func(i int) error {
			x, err := judge.Input(i)
			if err != nil || x.Skipped != "" {
				return err
			}
			if x.File != nil {
				fs, _ := l.File(x.File)
				found[i] = append(found[i], fs...)
				return nil
			}
			type doc struct {
				fs    []report.Finding
				count int
			}
			lint := func(p *source.Piece) doc {
				f := x.Parse(p)
				fs, _ := l.File(f)
				return doc{fs, f.Count}
			}
			base := 0
			for d, err := range InOrder(x.Documents(), lint) {
				if err != nil {
					return err
				}
				for _, f := range d.fs {
					f.Document += base
					found[i] = append(found[i], f)
				}
				base += d.count
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, fs := range found {
			for _, f := range fs {
				out = append(out, fmt.Sprintf("%s#%d:%d:%d %s %s [%s]", f.File, f.Document, f.Line, f.Column, f.Rule, f.Message, f.Field))
			}
		}
		slices.Sort(out)
		return out
	}
	whole, streamed := run(false), run(true)
	// Most findings the corpus once gave were about the placeholders of
	// its clusterctl templates, which are now skipped as substitution
	// templates.
	if len(whole) < testutil.AtLeast(t, 800, 250) {
		t.Fatalf("only %d findings", len(whole))
	}
	if strings.Join(whole, "\n") != strings.Join(streamed, "\n") {
		for i := range min(len(whole), len(streamed)) {
			if whole[i] != streamed[i] {
				t.Fatalf("first difference at %d:\nwhole:    %s\nstreamed: %s", i, whole[i], streamed[i])
			}
		}
		t.Fatalf("%d findings whole, %d streamed", len(whole), len(streamed))
	}
	t.Logf("%d findings, identical whole and streamed", len(whole))
}
