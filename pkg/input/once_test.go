package input

import (
	"context"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/count"
	"github.com/kubectl-crdlint/kubectl-crdlint/internal/testutil"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/lint"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/prune"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// TestOnce runs what check and prune do over the corpus, counting the
// costly steps: every document is parsed once, every CRD decoded once
// and validated at most once, every custom resource decoded at most once
// — with the CRDs among the inputs and with them given as --crd, check
// reading the files without CRDs a document at a time as it does.
func TestOnce(t *testing.T) {
	corpus := testutil.CorpusDir(t)
	crds, crs := filepath.Join(corpus, "crds"), filepath.Join(corpus, "crs")
	tests := []struct {
		name         string
		inputs, more []string
		prune        bool
	}{
		{"check, CRDs among the inputs", []string{crds, crs}, nil, false},
		{"check, CRDs given with --crd", []string{crs}, []string{crds}, false},
		{"prune --defaults, CRDs among the inputs", []string{crds, crs}, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, err := Open(tt.inputs, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			extra := crdSet(t, tt.more...)
			cat := crd.NewCatalog(false)
			run := NewRun(in, extra, cat)
			l := lint.New(lint.Options{Catalog: cat})
			var crdDocs, crDocs, rewritten, findings, docs, rewrittenDocs atomic.Int64
			before := count.Now()
			crds := func(found []crd.Found) {
				for _, fd := range found {
					if fd.Def != nil {
						crdDocs.Add(1)
					}
					if !tt.prune {
						findings.Add(int64(len(l.CRD(fd.Doc, fd.Def))))
					}
				}
			}
			file := func(data []byte, f *source.File) {
				docs.Add(int64(f.Count))
				for _, d := range f.Documents {
					if !crd.IsCRD(d) && !crd.IsBuiltin(d) {
						crDocs.Add(1)
					}
				}
				if tt.prune {
					r := prune.File(cat, f, data, prune.Options{Defaults: true})
					if len(r.Docs) > 0 && r.Err == nil && string(r.Out) != string(data) {
						rewritten.Add(1)
						rewrittenDocs.Add(int64(len(r.Texts)))
					}
					return
				}
				fs, _ := l.File(f)
				findings.Add(int64(len(fs)))
			}
			// check reads the files without CRDs a document at a time.
			run.Documents = !tt.prune
			ctx := context.Background()
			col := run.Collect()
			err = Parallel(ctx, len(in.Files), func(i int) error {
				x, err := col.Input(i)
				if x == nil {
					return err
				}
				for found, err := range x.CRDs() {
					if err != nil {
						return err
					}
					crds(found)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			judge := col.Done()
			err = judge.Parallel(ctx, func(i int) error {
				x, err := judge.Input(i)
				if err != nil || x.Skipped != "" {
					return err
				}
				if x.File != nil {
					file(x.Data, x.File)
					return nil
				}
				parse := func(p *source.Piece) bool {
					file(nil, x.Parse(p))
					return true
				}
				for _, err := range InOrder(x.Documents(), parse) {
					if err != nil {
						return err
					}
				}
				return nil
			})
			if err == nil {
				err = run.Done()
			}
			if err != nil {
				t.Fatal(err)
			}
			got := count.Now().Sub(before)
			// --crd files are parsed for the catalogue only, and only
			// those a lookup may need: count their documents and CRDs,
			// and those left unread.
			var unread int64
			deferred, err := cat.Deferred()
			if err != nil {
				t.Fatal(err)
			}
			for k, df := range deferred {
				if df == nil {
					continue
				}
				f, _, err := extra.Read(extra.Files[k])
				if err != nil {
					t.Fatal(err)
				}
				n := int64(0)
				for _, fd := range crd.FindCRDs(f) {
					if fd.Def != nil {
						n++
					}
				}
				if !df.Done() {
					unread += n
					continue
				}
				docs.Add(int64(f.Count))
				crdDocs.Add(n)
			}
			if len(tt.more) > 0 && unread == 0 {
				t.Errorf("every --crd file was read: none of their %d CRDs is left out, though the custom resources do not use them all", crdDocs.Load())
			}
			wantParses := docs.Load() + rewrittenDocs.Load()
			if got.Parses != wantParses {
				t.Errorf("parsed %d documents, want %d (each of %d documents once, plus %d rewritten documents read back)", got.Parses, wantParses, docs.Load(), rewrittenDocs.Load())
			}
			if got.CRDDecodes != crdDocs.Load() {
				t.Errorf("decoded CRDs %d times, want %d (each once)", got.CRDDecodes, crdDocs.Load())
			}
			// A catalogue keeps its CRDs without their decoded schemas:
			// a first lookup decodes one again to judge it and compile
			// the version, each further version compiled decodes it
			// again, and nothing else does.
			if got.CRDRedecodes > got.VersionCompiles+got.CRDValidations {
				t.Errorf("decoded CRDs again %d times, more than the %d versions compiled and %d validations", got.CRDRedecodes, got.VersionCompiles, got.CRDValidations)
			}
			if got.CRDValidations > crdDocs.Load() {
				t.Errorf("validated CRDs %d times, more than the %d CRDs", got.CRDValidations, crdDocs.Load())
			}
			if got.CRDecodes > crDocs.Load() {
				t.Errorf("decoded custom resources %d times, more than the %d custom resources", got.CRDecodes, crDocs.Load())
			}
			// Half the corpus's custom resources are clusterctl
			// templates (${CLUSTER_NAME} names, ${COUNT} replicas):
			// substitution templates, parsed and counted, not judged.
			if crdDocs.Load()+unread < int64(testutil.AtLeast(t, 100, 40)) || crDocs.Load() < int64(testutil.AtLeast(t, 1400, 400)) || got.CRDValidations == 0 || (!tt.prune && findings.Load() == 0) {
				t.Fatalf("too little exercised: %d CRDs, %d custom resources, %d validations, %d findings", crdDocs.Load(), crDocs.Load(), got.CRDValidations, findings.Load())
			}
			t.Logf("%d files, %d documents, %d CRDs read (%d --crd CRDs left unread), %d custom resources: %d documents parsed, %d CRD decodes (%d again), %d versions compiled, %d CRD validations, %d custom resource decodes, %d rewrites",
				len(in.Files)+len(extra.Files), docs.Load(), crdDocs.Load(), unread, crDocs.Load(), got.Parses, got.CRDDecodes, got.CRDRedecodes, got.VersionCompiles, got.CRDValidations, got.CRDecodes, rewritten.Load())
		})
	}
}
