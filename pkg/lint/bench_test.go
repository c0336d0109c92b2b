package lint

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/testutil"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/engine"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// BenchmarkCRDLarge lints the largest real CRD of the corpus (in the full
// corpus argo-workflows' Workflow; testutil.LargeCRD): load, strict
// decode, server validation with CEL compilation, positions and our
// warnings.
func BenchmarkCRDLarge(b *testing.B) {
	data, err := os.ReadFile(testutil.LargeCRD(b))
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

// crBench loads the corpus CRDs into a catalogue and returns the corpus
// custom resources that have a CRD there, as parsed files.
func crBench(b *testing.B) (*Linter, [][]byte) {
	cat := crd.NewCatalog(false)
	l := New(Options{Catalog: cat})
	for _, p := range testutil.Files(b, "crds") {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		collect(l, source.Parse(p, data))
	}
	var files [][]byte
	for _, p := range testutil.Files(b, "crs") {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		files = append(files, data)
	}
	return l, files
}

// BenchmarkCROne validates one typical custom resource (a cert-manager
// Certificate) against its compiled CRD version.
func BenchmarkCROne(b *testing.B) {
	l, _ := crBench(b)
	data := []byte("apiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata:\n  name: example\n  namespace: default\nspec:\n  secretName: example-tls\n  dnsNames: [example.com, www.example.com]\n  issuerRef:\n    name: letsencrypt\n    kind: ClusterIssuer\n")
	f := source.Parse("cert.yaml", data)
	l.File(f) // compile the version once, as a long run does
	b.ReportAllocs()
	for b.Loop() {
		l.File(source.Parse("cert.yaml", data))
	}
}

// BenchmarkCRBatch10k validates 10,000 corpus custom resource documents
// (the corpus repeated) per iteration, on one goroutine.
func BenchmarkCRBatch10k(b *testing.B) {
	l, files := crBench(b)
	var batch [][]byte
	docs := 0
	for docs < 10000 {
		for _, data := range files {
			batch = append(batch, data)
			docs += bytes.Count(data, []byte("\nkind: ")) + 1
			if docs >= 10000 {
				break
			}
		}
	}
	for _, data := range batch {
		l.File(source.Parse("warm.yaml", data))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for _, data := range batch {
			l.File(source.Parse("cr.yaml", data))
		}
	}
	b.ReportMetric(float64(docs)*float64(b.N)/b.Elapsed().Seconds(), "docs/s")
}

// BenchmarkCRUpdate is the server's update path (engine.Version.Update: prune,
// default, PrepareForUpdate, ValidateUpdate with ratcheting and CEL
// transition rules) that `immutable` runs, on every 5th corpus custom
// resource with a CRD, updated to itself plus a label: most CEL
// transition rules (self == oldSelf) are evaluated and hold.
func BenchmarkCRUpdate(b *testing.B) {
	cat := crd.NewCatalog(false)
	l := New(Options{Catalog: cat})
	for _, p := range testutil.Files(b, "crds") {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		collect(l, source.Parse(p, data))
	}
	type pair struct {
		v        *engine.Version
		old, new []byte
		ns       string
	}
	var pairs []pair
	n := 0
	for _, p := range testutil.Files(b, "crs") {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		for _, d := range source.Parse(p, data).Documents {
			if crd.IsCRD(d) || crd.IsBuiltin(d) {
				continue
			}
			g, ver := d.GroupVersion()
			v, err := cat.Lookup(schema.GroupVersionKind{Group: g, Version: ver, Kind: d.Object.Kind})
			if err != nil {
				continue
			}
			if n++; n%5 != 0 {
				continue
			}
			var obj map[string]any
			if err := json.Unmarshal(d.JSON, &obj); err != nil {
				continue
			}
			md, _ := obj["metadata"].(map[string]any)
			if md == nil {
				continue
			}
			md["labels"] = map[string]any{"bench": "updated"}
			updated, _ := json.Marshal(obj)
			pairs = append(pairs, pair{v: v, old: d.JSON, new: updated, ns: crd.DefaultNamespace})
		}
	}
	if len(pairs) < testutil.AtLeast(b, 200, 100) {
		b.Fatalf("only %d update pairs from the corpus", len(pairs))
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, p := range pairs {
			var o, nw map[string]any
			if err := json.Unmarshal(p.old, &o); err != nil {
				b.Fatal(err)
			}
			if err := json.Unmarshal(p.new, &nw); err != nil {
				b.Fatal(err)
			}
			if vd := p.v.Update(o, nw, p.ns); vd.Panic != "" {
				b.Fatal(vd.Panic)
			}
		}
	}
	b.ReportMetric(float64(len(pairs))*float64(b.N)/b.Elapsed().Seconds(), "updates/s")
}
