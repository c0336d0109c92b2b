package prune

import (
	"math/rand"
	"testing"

	yaml "go.yaml.in/yaml/v3"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/engine"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// pruneCase is one corpus custom resource with unknown fields injected, as
// text with a comment on every key (what Rewrite has to preserve).
type pruneCase struct {
	v      *engine.Version
	text   []byte
	doc    *source.Document
	pruned map[string]any // the server's stored object, for Rewrite
}

// pruneCases takes every 10th corpus document (about 300, all kinds of the
// corpus) and injects 1 to 4 unknown fields into each, with fixed seeds so
// that every run measures the same work.
func pruneCases(b *testing.B) []pruneCase {
	loadCorpus(b)
	var cs []pruneCase
	for i := 0; i < len(corpus.docs); i += 10 {
		d := corpus.docs[i]
		v, _ := lookup(d)
		var obj map[string]any
		if err := utiljson.Unmarshal(d.JSON, &obj); err != nil {
			b.Fatal(err)
		}
		r := rand.New(rand.NewSource(int64(i)))
		inject(r, obj, v.Structural(), 1+r.Intn(4))
		y, err := yaml.Marshal(commented(obj, ""))
		if err != nil {
			b.Fatal(err)
		}
		f := source.Parse("doc.yaml", y)
		if len(f.Documents) != 1 {
			b.Fatalf("document %d does not render", i)
		}
		var pruned map[string]any
		_ = utiljson.Unmarshal(f.Documents[0].JSON, &pruned)
		if unknown, err := v.Prune(pruned, false); err != nil || len(unknown) == 0 {
			// A decode error (check reports it, prune has nothing to do),
			// or every injected field landed where unknown fields are kept.
			continue
		}
		cs = append(cs, pruneCase{v: v, text: y, doc: f.Documents[0], pruned: pruned})
	}
	if len(cs) < 100 {
		b.Fatalf("only %d prune cases from the corpus", len(cs))
	}
	return cs
}

// BenchmarkPrune is the server's pruning and metadata coercion of corpus
// custom resources with injected unknown fields (engine.Version.Prune, the
// step check's unknown-field warnings and the prune command share),
// including the JSON decode each document needs first.
func BenchmarkPrune(b *testing.B) {
	cs := pruneCases(b)
	b.ReportAllocs()
	for b.Loop() {
		for _, c := range cs {
			var obj map[string]any
			if err := utiljson.Unmarshal(c.doc.JSON, &obj); err != nil {
				b.Fatal(err)
			}
			if _, err := c.v.Prune(obj, false); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(len(cs))*float64(b.N)/b.Elapsed().Seconds(), "docs/s")
}

// BenchmarkRewrite is the text side of prune: planning the edits that
// remove the pruned keys with their comments, applying them, and the
// verifying re-decode.
func BenchmarkRewrite(b *testing.B) {
	cs := pruneCases(b)
	b.ReportAllocs()
	for b.Loop() {
		for _, c := range cs {
			if _, err := Rewrite(source.Parse("doc.yaml", c.text), c.text, []Doc{{Document: c.doc, Object: c.pruned}}); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(len(cs))*float64(b.N)/b.Elapsed().Seconds(), "docs/s")
}
