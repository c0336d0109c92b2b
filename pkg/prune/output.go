package prune

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/fsutil"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// Output is the prune command's output: results are handed to it a batch
// at a time (all local files at once, or one page of live objects), their
// notes and errors said on stderr, and printed (or written back to their
// files, InPlace) as they come.
type Output struct {
	// Printer prints the results; unused InPlace.
	Printer *Printer
	// InPlace rewrites each file that changes, atomically, saying so on
	// ErrOut, instead of printing.
	InPlace bool
	ErrOut  io.Writer
	// Notes says a result's notes and returns how many of them are errors
	// (the command's policy for a missing CRD decides).
	Notes func(notes []crd.Note) int

	// Files counts the results handed over, Failed those with Err,
	// Unserved the errors among their notes (custom resources that could
	// not be pruned).
	Files, Failed, Unserved int
	// Skips counts what was not pruned because it is no custom resource:
	// the results' documents (Result.Skips) and whole files (Skip).
	Skips report.Summary
	// written counts the results printed, last names the last of them:
	// where an interrupted output stops.
	written int
	last    string
}

// Skip counts a file that is not manifests (a kustomization, a Helm
// template, ...: input.Judging.Skipped), which has no result.
func (o *Output) Skip(reason string) {
	o.Files++
	o.Skips.Skip(reason)
}

// Emit says the results' notes and errors, then prints them or rewrites
// their files. A nil result (a skipped file, counted with Skip) is left
// out.
func (o *Output) Emit(results []*Result) error {
	results = slices.DeleteFunc(slices.Clone(results), func(r *Result) bool { return r == nil })
	for _, r := range results {
		o.Skips.Add(r.Skips)
		o.Unserved += o.Notes(r.Notes)
		o.Files++
		if r.Err != nil {
			fmt.Fprintf(o.ErrOut, "error: %v\n", r.Err)
			o.Failed++
		}
	}
	if o.InPlace {
		return o.rewrite(results)
	}
	if err := o.Printer.Print(results); err != nil {
		return err
	}
	for _, r := range results {
		if r.Err == nil {
			o.written++
			o.last = r.Path
		}
	}
	return nil
}

// Close ends the printed output (nothing to end InPlace), and says on
// ErrOut what was skipped, in check's words ("6 skipped (2
// kustomization, ...)").
func (o *Output) Close() error {
	if s := o.Skips.SkippedText(); s != "" {
		fmt.Fprintln(o.ErrOut, s)
	}
	if o.InPlace {
		return nil
	}
	return o.Printer.Close()
}

// Changed reports whether anything printed as a diff would change.
func (o *Output) Changed() bool { return o.Printer.Fields+o.Printer.Added > 0 }

// WriteError is a file --in-place could not rewrite.
type WriteError struct{ Err error }

func (e *WriteError) Error() string { return e.Err.Error() }
func (e *WriteError) Unwrap() error { return e.Err }

// rewrite writes back the files that change, atomically; an unchanged
// file is not touched, so that its modification time says so.
func (o *Output) rewrite(results []*Result) error {
	for _, r := range results {
		if r.Err != nil || bytes.Equal(r.Data, r.Out) {
			continue
		}
		out, err := source.InEncodingOf(r.Raw, r.Out)
		if err != nil {
			return &WriteError{err}
		}
		if err := fsutil.WriteAtomic(r.Path, out); err != nil {
			return &WriteError{err}
		}
		fmt.Fprintf(o.ErrOut, "rewrote %s: %s\n", r.Path, r.Changes())
	}
	return nil
}

// Pages is how live objects arrive: each page rendered as parsed files
// with their texts (cluster.Client.VisitFiles), and how many were read.
type Pages func(fn func(files []*source.File, texts [][]byte) error) (int, error)

// IncompleteError is a read of live objects that failed after some of
// them were printed: Stop says where the output stops.
type IncompleteError struct {
	Err  error
	Stop string
}

func (e *IncompleteError) Error() string { return fmt.Sprintf("%v; %s", e.Err, e.Stop) }
func (e *IncompleteError) Unwrap() error { return e.Err }

// Parallel runs fn for each of 0..n-1 concurrently: input.Parallel,
// passed in because pkg/input's tests import this package, which
// therefore cannot import pkg/input.
type Parallel func(ctx context.Context, n int, fn func(i int) error) error

// Live prunes live objects a page at a time, the objects of a page in
// parallel, emitting each page as it comes, and returns how many objects
// were read. Reading that fails after output has been printed is an
// IncompleteError, and the output says where it stops too (Interrupt), so
// that nobody applies what was printed as all of it: what was printed is
// valid on its own.
func (o *Output) Live(ctx context.Context, cat *crd.Catalog, opts Options, parallel Parallel, pages Pages) (int, error) {
	n, err := pages(func(files []*source.File, texts [][]byte) error {
		results := make([]*Result, len(files))
		// A cancelled run prunes no more of the page: emitting it would
		// print what was not pruned (nil results).
		if err := parallel(ctx, len(files), func(i int) error {
			results[i] = File(cat, files[i], texts[i], opts)
			return nil
		}); err != nil {
			return err
		}
		return o.Emit(results)
	})
	if err == nil || o.written == 0 {
		return n, err
	}
	objects := "objects"
	if o.written == 1 {
		objects = "object"
	}
	stop := fmt.Sprintf("the output stops after %d %s (the last %s)", o.written, objects, o.last)
	// Output that could not be written fails Interrupt too (the printer
	// keeps its first write error): the run ends with that error, not as
	// an interrupted read of the cluster.
	if perr := o.Printer.Interrupt("kubectl-crdlint: incomplete: " + stop + "; reading the rest from the cluster failed"); perr != nil {
		return n, perr
	}
	return n, &IncompleteError{Err: err, Stop: stop}
}
