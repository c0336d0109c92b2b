package kustomize

import (
	"path/filepath"
	"testing"
)

func BenchmarkRender(b *testing.B) {
	dir := filepath.Join(repo, "overlays/dev")
	for b.Loop() {
		if _, err := Render(dir); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTrace traces a patched field: the worst case, which reads
// every patch of the chain.
func BenchmarkTrace(b *testing.B) {
	r, err := Render(filepath.Join(repo, "overlays/staging"))
	if err != nil {
		b.Fatal(err)
	}
	doc := -1
	for i, o := range r.Objects {
		if o.Object.Name == "dev-web-s" {
			doc = i
		}
	}
	if doc < 0 {
		b.Fatal("no dev-web-s")
	}
	for b.Loop() {
		if t := r.Trace(doc, "spec.size"); t.Via != ViaPatch {
			b.Fatalf("got %+v", t)
		}
	}
}
