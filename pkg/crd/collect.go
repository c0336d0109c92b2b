package crd

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// Found is a CustomResourceDefinition document of a file with its
// decoded Definition (nil for apiextensions versions other than v1, which
// no server serves).
type Found struct {
	Doc *source.Document
	Def *Definition
}

// Source names where a found CRD came from, for messages.
func (f Found) Source() string { return fmt.Sprintf("%s:%d", f.Doc.File, f.Doc.Root.Line) }

// FindCRDs decodes the CustomResourceDefinitions of a parsed file, in
// document order.
func FindCRDs(f *source.File) []Found {
	var out []Found
	bundle := slices.ContainsFunc(f.Documents, func(d *source.Document) bool { return !IsCRD(d) })
	for _, d := range f.Documents {
		if !IsCRD(d) {
			continue
		}
		fd := Found{Doc: d}
		if IsV1CRD(d) {
			fd.Def = Decode(d.JSON)
			pos, _ := d.Locate("metadata.name")
			fd.Def.Origin = &Origin{File: d.File, Document: d.Index, Line: pos.Line, Column: pos.Column, Object: d.Object, Bundle: bundle}
		}
		out = append(out, fd)
	}
	return out
}

// Removed says why a file of CRDs holds none a server serves, when it
// holds CRDs of an apiextensions.k8s.io version other than v1 (v1beta1,
// removed in Kubernetes 1.22): the first of them, its position and its
// version, and how many such it holds; "" when it holds none (no CRD at
// all, or a v1 one). For the error of a CRD source that yields no CRD,
// which would otherwise say none is found in a file full of them.
func Removed(name string, data []byte) string {
	if !bytes.Contains(source.MarkedText(data), Marker) {
		return ""
	}
	var first Found
	n := 0
	for _, fd := range FindCRDs(source.Parse(name, data)) {
		if fd.Def != nil {
			return ""
		}
		if n == 0 {
			first = fd
		}
		n++
	}
	if n == 0 {
		return ""
	}
	g, v := first.Doc.GroupVersion()
	what := fmt.Sprintf("CustomResourceDefinition %s (%s) is %s/%s", first.Doc.Object.Name, first.Source(), g, v)
	if n > 1 {
		what = fmt.Sprintf("its %d CustomResourceDefinitions are not apiextensions.k8s.io/v1: %s", n, what)
	}
	note := "which no supported Kubernetes release serves"
	if v == "v1beta1" {
		note = "which Kubernetes 1.22 and later no longer serve"
	}
	return fmt.Sprintf("%s, %s; use apiextensions.k8s.io/v1", what, note)
}

// AddFound adds found CRDs of a layer in order: a later CRD of a kind
// replaces an earlier one, as applying them in order would (among the
// inputs, where the nearest is the same: judge.go).
func (c *Catalog) AddFound(found []Found, layer Layer) {
	for _, f := range found {
		if f.Def != nil {
			c.Add(f.Def, f.Source(), layer)
		}
	}
}

// Stored is a found CRD as a cache keeps it between runs: its JSON and
// where it was written, which is all it takes to decode it again as
// FindCRDs did without parsing its file (Restore).
type Stored struct {
	JSON   []byte
	Source string
	Origin *Origin
}

// StoredOf is what to keep of a file's found CRDs: those FindCRDs
// decoded (a Definition, even one that failed to decode), in order.
func StoredOf(found []Found) []Stored {
	var out []Stored
	for _, f := range found {
		if f.Def != nil {
			out = append(out, Stored{JSON: f.Doc.JSON, Source: f.Source(), Origin: f.Def.Origin})
		}
	}
	return out
}

// Restore decodes stored CRDs as FindCRDs decoded them from their file.
func Restore(stored []Stored) []Loaded {
	out := make([]Loaded, len(stored))
	for i, s := range stored {
		d := Decode(s.JSON)
		d.Origin = s.Origin
		out[i] = Loaded{Def: d, Source: s.Source}
	}
	return out
}
