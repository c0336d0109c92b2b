package source

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	sigsyaml "sigs.k8s.io/yaml"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/testutil"
)

// BenchmarkParseMultiDoc is load and decode of one large multi-document
// file: every corpus custom resource file joined with "---" (about 3,500
// documents, 3 MB), split, decoded to nodes and JSON, identified, and
// checked for duplicate keys, as check does for each input file.
func BenchmarkParseMultiDoc(b *testing.B) {
	var buf bytes.Buffer
	for _, p := range testutil.Files(b, "crs") {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		buf.WriteString("---\n")
		buf.Write(data)
		buf.WriteString("\n")
	}
	data := buf.Bytes()
	docs := len(Parse("all.yaml", data).Documents)
	if docs < testutil.AtLeast(b, 3000, 1000) {
		b.Fatalf("only %d documents parsed from the corpus", docs)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		Parse("all.yaml", data)
	}
	b.ReportMetric(float64(docs)*float64(b.N)/b.Elapsed().Seconds(), "docs/s")
}

// BenchmarkParseLargeCRD is load and decode of a large CRD (in the full
// corpus argo-workflows' Workflow, 2.8 MB of deeply nested schema; the
// largest of the in-repo corpus otherwise), the worst case for the YAML
// decoder and the JSON conversion.
func BenchmarkParseLargeCRD(b *testing.B) {
	data, err := os.ReadFile(testutil.LargeCRD(b))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if f := Parse("workflows.yaml", data); len(f.Documents) != 1 {
			b.Fatalf("%d documents", len(f.Documents))
		}
	}
}

// BenchmarkDocReaderMultiDoc is BenchmarkParseMultiDoc through a
// DocReader over an io.Reader, one document at a time, as a streaming
// engine reads files.
func BenchmarkDocReaderMultiDoc(b *testing.B) {
	var buf bytes.Buffer
	for _, p := range testutil.Files(b, "crs") {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		buf.WriteString("---\n")
		buf.Write(data)
		buf.WriteString("\n")
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		r := NewDocReader("all.yaml", bytes.NewReader(data))
		for {
			if _, err := r.Next(); err != nil {
				break
			}
		}
	}
}

// BenchmarkParseJSON is load and decode of the large CRD as a JSON
// stream of one value.
func BenchmarkParseJSON(b *testing.B) {
	data, err := os.ReadFile(testutil.LargeCRD(b))
	if err != nil {
		b.Fatal(err)
	}
	js, err := sigsyaml.YAMLToJSON(data)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(js)))
	b.ReportAllocs()
	for b.Loop() {
		if f := Parse("crd.json", js); len(f.Documents) != 1 {
			b.Fatalf("%d documents", len(f.Documents))
		}
	}
}

// BenchmarkExpandRead is the file-system side of loading: expanding the
// corpus directory and reading every file, without decoding.
func BenchmarkExpandRead(b *testing.B) {
	dir := filepath.Join(testutil.CorpusDir(b), "crs")
	b.ReportAllocs()
	for b.Loop() {
		paths, err := Expand([]string{dir})
		if err != nil {
			b.Fatal(err)
		}
		for _, p := range paths {
			if _, err := ReadBytes(p); err != nil {
				b.Fatal(err)
			}
		}
	}
}
