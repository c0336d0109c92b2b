package input

import (
	"bytes"
	"context"
	"io"
	"iter"
	"os"
	"sync/atomic"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// Collect is a run's collect phase: every input read once, the files
// that hold CRDs parsed and their CRDs decoded, to be added to the
// catalogue in input order when the phase is done. The caller owns the
// loop: for each input, in parallel (Parallel), Input, then a range over
// its CRDs, always (the range keeps the input for the judge phase);
// then Done.
//
//	col := run.Collect()
//	err := input.Parallel(ctx, len(run.Inputs.Files), func(i int) error {
//		in, err := col.Input(i)
//		if in == nil {
//			return err
//		}
//		for found, err := range in.CRDs() { ... }
//	})
//	judge := col.Done()
type Collect struct {
	r    *Run
	keep []collected
	// kept counts the bytes held of inputs without CRDs (keepBudget).
	kept atomic.Int64
}

// Collect begins the collect phase over the inputs as they are now.
func (r *Run) Collect() *Collect {
	return &Collect{r: r, keep: make([]collected, len(r.Inputs.Files))}
}

// CollectAll is the collect phase of a command that does nothing with
// the CRDs as they are collected (all but check): every input collected,
// in parallel.
func (r *Run) CollectAll(ctx context.Context) (*Judge, error) {
	col := r.Collect()
	err := Parallel(ctx, len(r.Inputs.Files), func(i int) error {
		in, err := col.Input(i)
		if in == nil {
			return err
		}
		for _, err := range in.CRDs() {
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return col.Done(), nil
}

// Collecting is one input in the collect phase.
type Collecting struct {
	col *Collect
	i   int
	p   string
	c   *collected
	// data is its content (nil for a file read a document at a time);
	// marker says the CRD marker is in it.
	data   []byte
	marker bool
}

// Input reads input i for the collect phase; nil for an input that is
// not manifests (Set.Skip), which is not read. A file of the
// Run.Documents kind larger than StreamAbove is not read yet: its CRDs
// are read a document at a time.
func (col *Collect) Input(i int) (*Collecting, error) {
	in := col.r.Inputs
	p := in.Files[i]
	if in.Skip[i] != "" {
		return nil, nil
	}
	x := &Collecting{col: col, i: i, p: p, c: &col.keep[i]}
	if col.r.Documents && in.cached[p] == nil && size(p) > StreamAbove {
		x.c.stream = true
		return x, nil
	}
	data, err := in.Bytes(p)
	if err != nil {
		return nil, err
	}
	// The marker is looked for in the text kubectl reads of a file with
	// a byte order mark (a UTF-16 file's bytes do not hold it, its CRDs
	// do); other files hold the ASCII marker as they are, so that no file
	// is scanned twice for it.
	x.data, x.marker = data, bytes.Contains(source.MarkedText(data), crd.Marker)
	return x, nil
}

// Data is the input's content, nil for a file read a document at a time.
func (x *Collecting) Data() []byte { return x.data }

// Replayable says a command may answer for the input's documents from
// what an earlier run found (Judging.Replayable), as far as the collect
// phase knows: a file of the Run.Documents kind held in memory, read
// from disk rather than given (stdin, a pipe, a rendered kustomization:
// content this run made up or cannot read twice).
func (x *Collecting) Replayable() bool {
	return x.col.r.Documents && !x.c.stream && x.col.r.Inputs.cached[x.p] == nil
}

// Marked says the CRD marker is in the input's text: CRDs parses it.
func (x *Collecting) Marked() bool { return x.marker }

// NoCRDs says the input holds no CRD, as an earlier run found the same
// content (a Replayable input), before CRDs parses it to know: it is
// then taken as a file without the marker (not parsed unless its replay
// misses). The word is in many files that hold no CRD: an Argo CD
// Application that ignores differences in CRDs, a policy that matches
// them.
func (x *Collecting) NoCRDs() { x.marker = false }

// CRDs are the input's CRD documents, decoded, while their trees are
// alive: a batch for a file parsed whole, a batch per piece of a file
// read a document at a time (whose Data is nil). Each batch's
// Definitions are shed (crd.Definition.Shed: their V1 loses its schemas)
// when the loop body returns; check lints them there. When the range
// ends, the input is kept for the judge phase.
func (x *Collecting) CRDs() iter.Seq2[[]crd.Found, error] {
	return func(yield func([]crd.Found, error) bool) {
		if x.c.stream {
			if err := x.col.stream(x.p, x.c, yield); err != nil {
				yield(nil, err)
			}
			return
		}
		x.collect(yield)
	}
}

// collect is CRDs for a file held whole.
func (x *Collecting) collect(yield func([]crd.Found, error) bool) {
	in, c, data, documents := x.col.r.Inputs, x.c, x.data, x.col.r.Documents
	// A file without CRDs goes to the judge phase unparsed: with
	// Documents, it is then read a document at a time, and may be
	// replayed.
	unparsed := func() {
		c.kind = mainKind(data)
		if x.col.kept.Add(int64(len(data))) <= keepBudget || in.cached[x.p] != nil {
			c.data = data
		} else {
			c.reread = true
		}
	}
	if !x.marker {
		unparsed()
		return
	}
	f := source.ParseInput(in.Name(x.p), data)
	found := crd.FindCRDs(f)
	if len(found) == 0 {
		if documents {
			// Judged as the files without the marker are (a document
			// at a time), so that it can be replayed like them:
			// parsing it again costs less than judging it on every
			// run.
			unparsed()
			return
		}
		c.kind = mainKind(data)
		c.file, c.data = f, data
		return
	}
	c.kind = mainKind(data)
	if !yield(found, nil) {
		return
	}
	c.crds = loaded(found)
	// Not f.Documents[:0:0]: an empty slice of the old array still
	// points at it, and that kept every CRD document's tree (a third of
	// the live heap) until the judge phase.
	var rest []*source.Document
	for _, d := range f.Documents {
		if !crd.IsCRD(d) {
			rest = append(rest, d)
		}
	}
	f.Documents = rest
	if len(rest) == 0 {
		// Nothing left to judge: let the CRDs' text go.
		f.Texts = nil
		data = nil
	}
	c.file, c.data = f, data
}

// stream is the collect phase for a large file: a scan for the CRD
// marker without parsing, and only when it is there, the CRDs, a piece
// at a time. (A large file that holds CRDs is then parsed twice, once
// per phase: rare enough to keep memory bounded rather than hold its
// documents.)
func (col *Collect) stream(p string, c *collected, yield func([]crd.Found, error) bool) error {
	f, err := os.Open(p)
	if err != nil {
		_, err = source.ReadBytes(p)
		return err
	}
	found, err := containsStream(f, crd.Marker)
	f.Close()
	if err != nil || !found {
		return err
	}
	c.crdsIn = true
	dr, rf, err := col.r.docReader(p)
	if err != nil {
		return err
	}
	defer rf.Close()
	others := false
	for {
		piece, err := dr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		found := crd.FindCRDs(piece)
		others = others || len(found) < len(piece.Documents)
		if len(found) == 0 {
			continue
		}
		if !yield(found, nil) {
			return nil
		}
		c.crds = append(c.crds, loaded(found)...)
	}
	// FindCRDs saw a piece at a time: the file is a bundle when any piece
	// held other objects (crd.Origin.Bundle).
	for _, d := range c.crds {
		if d.Def.Origin != nil {
			d.Def.Origin.Bundle = d.Def.Origin.Bundle || others
		}
	}
	return nil
}

// Done ends the collect phase: the CRDs collected go to the catalogue in
// input order (the nearest CRD of a kind judges, the later one within a
// file, as applying it would), and the judge phase may begin.
func (col *Collect) Done() *Judge {
	for i := range col.keep {
		for _, d := range col.keep[i].crds {
			col.r.Catalog.Add(d.Def, d.Source, crd.Input)
		}
		col.keep[i].crds = nil
	}
	return &Judge{r: col.r, keep: col.keep}
}
