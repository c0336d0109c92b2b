package input

import (
	"bytes"
	"context"
	"io"
	"iter"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/parallel"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// Judge is a run's judge phase: every input, parsed once, with the
// catalogue complete (a custom resource is judged against a CRD that
// comes after it in the inputs). The caller owns the loop: Parallel
// runs its work on each input, and the work takes the input with Input.
type Judge struct {
	r    *Run
	keep []collected
}

// Parallel runs fn for every input over all cores (as the package's
// Parallel does), taking the inputs by their main kind, in input order
// within a kind: documents of a kind then meet their compiled version
// while the catalogue still holds it (it keeps only so many,
// crd.DefaultVersionBudget). The order changes no result: fn tells the
// input's place by i.
func (j *Judge) Parallel(ctx context.Context, fn func(i int) error) error {
	return parallel.In(ctx, byKind(j.keep), len(j.keep), fn)
}

// Judging is one input in the judge phase: an input that is not
// manifests (Skipped), a file parsed whole (File), or, with
// Run.Documents, a file read a document at a time (Documents).
type Judging struct {
	// Skipped is why the input is not manifests (Set.Skip: a
	// kustomization, a patch, a Helm template), which is not read.
	Skipped string
	// File is the input parsed, its CRD documents removed (the collect
	// phase gave them), and Data its content; Data is nil for a file
	// that held only CRDs. File is nil for a file read a document at a
	// time.
	File *source.File
	Data []byte

	r      *Run
	i      int
	p      string
	stream bool // a file larger than StreamAbove, never held
	crdsIn bool // its collect phase found CRDs
}

// Input is input i for the judge phase, once: what the collect phase
// kept of it is let go.
func (j *Judge) Input(i int) (*Judging, error) {
	in := j.r.Inputs
	p := in.Files[i]
	if in.Skip[i] != "" {
		return &Judging{Skipped: in.Skip[i]}, nil
	}
	c := j.keep[i]
	j.keep[i] = collected{}
	x := &Judging{r: j.r, i: i, p: p}
	if c.stream {
		x.stream, x.crdsIn = true, c.crdsIn
		return x, nil
	}
	f, data := c.file, c.data
	if j.r.Documents && f == nil {
		x.Data = data // nil to read again
		return x, nil
	}
	switch {
	case c.reread:
		var err error
		if data, err = in.Bytes(p); err != nil {
			return nil, err
		}
		f = source.ParseInput(in.Name(p), data)
	case f == nil:
		f = source.ParseInput(in.Name(p), data)
	}
	x.File, x.Data = f, data
	return x, nil
}

// Replayable says the command may answer for the documents of a file
// read a document at a time from what an earlier run found for the same
// content (Content): its content can be held (not larger than
// StreamAbove) and was read from disk, not given (stdin, a pipe, a
// rendered kustomization: content this run made up or cannot read
// twice).
func (x *Judging) Replayable() bool {
	return x.File == nil && x.Skipped == "" && !x.stream && x.r.Inputs.cached[x.p] == nil
}

// Content is the content of a Replayable file, read now unless the
// collect phase kept it; Documents then reads it from there.
func (x *Judging) Content() ([]byte, error) {
	if x.Data == nil {
		var err error
		if x.Data, err = x.r.Inputs.Bytes(x.p); err != nil {
			return nil, err
		}
	}
	return x.Data, nil
}

// Documents is the file read a document at a time: each document's
// piece in order, not parsed yet (Parse parses one). Memory then follows
// the documents in flight, not the file; a file larger than StreamAbove
// is not even held. A file the reader cannot read is an error at the
// start or, for what is found as it is read, at the end.
func (x *Judging) Documents() iter.Seq2[*source.Piece, error] {
	return func(yield func(*source.Piece, error) bool) {
		dr, closer, err := x.reader()
		if err != nil {
			yield(nil, err)
			return
		}
		if closer != nil {
			defer closer.Close()
		}
		for {
			piece, err := dr.NextPiece()
			if err == io.EOF {
				return
			}
			if !yield(piece, err) || err != nil {
				return
			}
		}
	}
}

// reader opens the file's documents: from its content when held (read
// now when it can be), else a stream of the file.
func (x *Judging) reader() (*source.DocReader, io.Closer, error) {
	r := x.r
	data := x.Data
	if data == nil && size(x.p) <= StreamAbove {
		// Held while it is judged, so that it reads as Parse reads it
		// (source.DocReader.NoKind needs the whole text).
		var err error
		if data, err = r.Inputs.Bytes(x.p); err != nil {
			return nil, nil, err
		}
	}
	if data == nil {
		dr, f, err := r.docReader(x.p)
		if err != nil {
			return nil, nil, err
		}
		return dr, f, nil
	}
	dr := source.NewDocReader(r.Inputs.Name(x.p), bytes.NewReader(data))
	dr.NoKind = !source.HasKind(data)
	dr.Input = true
	if r.MaxDocumentSize > 0 {
		dr.MaxDocumentSize = r.MaxDocumentSize
	}
	return dr, nil, nil
}

// Parse parses one of Documents' pieces, without the CRDs the collect
// phase took: a File of one document's worth, its indexes counted from
// 0, Line set. Pieces may be parsed concurrently.
func (x *Judging) Parse(p *source.Piece) *source.File {
	f := p.Parse()
	if x.crdsIn {
		f.Documents = slices.DeleteFunc(f.Documents, crd.IsCRD)
	}
	return f
}

// InOrder runs work on each item of seq on all cores and yields the
// results in seq's order, in the caller's goroutine: the documents of a
// file are judged concurrently, and reviewed in order. An error of seq
// is yielded after the results of the items before it.
func InOrder[T, R any](seq iter.Seq2[T, error], work func(T) R) iter.Seq2[R, error] {
	return func(yield func(R, error) bool) {
		type job struct {
			item T
			res  R
			done chan struct{}
		}
		workers := runtime.GOMAXPROCS(0)
		jobs, order := make(chan *job, 2*workers), make(chan *job, 2*workers)
		stop := make(chan struct{})
		var seqErr error
		go func() {
			defer close(order)
			defer close(jobs)
			for item, err := range seq {
				if err != nil {
					seqErr = err
					return
				}
				j := &job{item: item, done: make(chan struct{})}
				select {
				case order <- j:
				case <-stop:
					return
				}
				jobs <- j
			}
		}()
		var wg sync.WaitGroup
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for j := range jobs {
					j.res = work(j.item)
					close(j.done)
				}
			}()
		}
		defer wg.Wait()
		for j := range order {
			<-j.done
			if !yield(j.res, nil) {
				close(stop)
				for range order {
				}
				return
			}
		}
		if seqErr != nil {
			var zero R
			yield(zero, seqErr)
		}
	}
}

func size(p string) int64 {
	st, err := os.Stat(p)
	if err != nil || !st.Mode().IsRegular() {
		return 0
	}
	return st.Size()
}

// docReader opens a file as a stream of documents.
func (r *Run) docReader(p string) (*source.DocReader, *os.File, error) {
	f, err := os.Open(p)
	if err != nil {
		_, err = source.ReadBytes(p) // the reader's one-line wording
		return nil, nil, err
	}
	dr := source.NewDocReader(r.Inputs.Name(p), f)
	dr.Input = true
	if r.MaxDocumentSize > 0 {
		dr.MaxDocumentSize = r.MaxDocumentSize
	}
	return dr, f, nil
}

// byKind orders the inputs for the judge phase by their main kind, in
// input order within a kind. The order changes no result.
func byKind(keep []collected) []int {
	order := make([]int, len(keep))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return strings.Compare(keep[a].kind, keep[b].kind) })
	return order
}
