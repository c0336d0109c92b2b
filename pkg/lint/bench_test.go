package lint

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/testutil"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// BenchmarkCRDLarge lints the largest real CRD of the corpus (argo-workflows'
// Workflow, about 1.5 MB of schema): load, strict decode, server
// validation with CEL compilation, positions and our warnings.
func BenchmarkCRDLarge(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(testutil.CorpusDir(b), "crds", "argo-workflows__manifests__base__crds__full__argoproj.io_workflows.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	l := New(Options{})
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		f := source.Parse("workflows.yaml", data)
		fs, _ := l.File(f)
		if len(fs) == 0 {
			b.Fatal("expected the warnings this CRD has")
		}
	}
}

// BenchmarkCRDCorpus lints every corpus CRD once per iteration.
func BenchmarkCRDCorpus(b *testing.B) {
	var files [][]byte
	for _, p := range testutil.Files(b, "crds") {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		files = append(files, data)
	}
	l := New(Options{})
	b.ReportAllocs()
	for b.Loop() {
		for _, data := range files {
			l.File(source.Parse("crd.yaml", data))
		}
	}
	b.ReportMetric(float64(len(files))*float64(b.N)/b.Elapsed().Seconds(), "crds/s")
}
