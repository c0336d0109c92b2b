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
		v := Visitor{
			CRDs: func(i int, _ []byte, fs []crd.Found) {
				for _, f := range fs {
					found[i] = append(found[i], l.CRD(f.Doc, f.Def)...)
				}
			},
			File: func(i int, _ []byte, f *source.File) error {
				fs, _ := l.File(f)
				found[i] = append(found[i], fs...)
				return nil
			},
		}
		if stream {
			v.Doc = func(i int, f *source.File) (any, error) {
				fs, _ := l.File(f)
				return fs, nil
			}
			v.Take = func(i, base int, res any) {
				for _, f := range res.([]report.Finding) {
					f.Document += base
					found[i] = append(found[i], f)
				}
			}
			v.Done = func(int) error { return nil }
		}
		if err := r.Visit(context.Background(), v); err != nil {
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
