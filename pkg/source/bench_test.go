package source

import (
	"bytes"
	"fmt"
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

// largeDocument is one document of about size bytes in one of the shapes
// that stress the reader differently: many keys in one mapping, a long
// list of small objects, one flow-style line (with a "!" in a comment,
// which makes the fast path look at every node's text), and the list as
// a JSON stream.
func largeDocument(shape string, size int) []byte {
	var b bytes.Buffer
	switch shape {
	case "keys":
		b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: large\ndata:\n")
		for i := 0; b.Len() < size; i++ {
			fmt.Fprintf(&b, "  key%d: value-%d\n", i, i)
		}
	case "list", "json":
		b.WriteString("apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: large\nspec:\n  items:\n")
		for i := 0; b.Len() < size; i++ {
			fmt.Fprintf(&b, "  - name: item%d\n    value: %d\n", i, i)
		}
		if shape == "json" {
			js, err := sigsyaml.YAMLToJSON(b.Bytes())
			if err != nil {
				panic(err)
			}
			return js
		}
	case "flow":
		b.WriteString("# flow style!\n{apiVersion: v1, kind: ConfigMap, metadata: {name: large}, data: {")
		for i := 0; b.Len() < size; i++ {
			fmt.Fprintf(&b, "k%d: v%d, ", i, i)
		}
		b.WriteString("z: end}}\n")
	}
	return b.Bytes()
}

// BenchmarkParseLargeDocument reads one document of 1, 4 and 16 MB in
// each shape: reading is linear when MB/s stays the same across sizes
// (a flow-style line used to be quadratic: 2m25s for 1 MB).
func BenchmarkParseLargeDocument(b *testing.B) {
	for _, shape := range []string{"keys", "list", "flow", "json"} {
		for _, mb := range []int{1, 4, 16} {
			data := largeDocument(shape, mb<<20)
			b.Run(fmt.Sprintf("%s/%dMB", shape, mb), func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				b.ReportAllocs()
				for b.Loop() {
					if f := Parse("large.yaml", data); len(f.Documents) != 1 {
						b.Fatalf("%d documents, findings %v", len(f.Documents), f.Findings)
					}
				}
			})
		}
	}
}

// BenchmarkLocateLargeMapping locates every key of a mapping of 1,000,
// 4,000 and 16,000 keys, as positioning one unknown-field finding per key
// does: linear when ns/op grows as the keys (it was their square).
func BenchmarkLocateLargeMapping(b *testing.B) {
	for _, n := range []int{1000, 4000, 16000} {
		var text bytes.Buffer
		text.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: large\ndata:\n")
		paths := make([]string, n)
		for i := range n {
			fmt.Fprintf(&text, "  key%d: v\n", i)
			paths[i] = fmt.Sprintf("data.key%d", i)
		}
		f := Parse("large.yaml", text.Bytes())
		b.Run(fmt.Sprintf("%dkeys", n), func(b *testing.B) {
			for b.Loop() {
				d := f.Documents[0]
				d.keys = keyIndex{}
				for _, p := range paths {
					if _, exact := d.Locate(p); !exact {
						b.Fatalf("%s not found", p)
					}
				}
			}
		})
	}
}
