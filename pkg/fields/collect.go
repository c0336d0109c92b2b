package fields

import (
	apifields "k8s.io/apimachinery/pkg/fields"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// Collection gathers what a run's files give, file by file in input
// order, so that each file's notes are said as it comes and the objects
// print in the order they were given.
type Collection struct {
	// Selector keeps the objects it matches (nil: all).
	Selector apifields.Selector
	// Notes says a file's notes and returns how many of them are errors
	// (the command's policy for a missing CRD decides).
	Notes func(notes []crd.Note) int

	Matched []Object
	// Seen counts the custom resources read, matching or not; Unserved
	// those that could not be judged (an error unless a missing CRD is
	// relaxed).
	Seen, Unserved int
	// Skips counts what is no custom resource: the files' documents
	// (Objects.Skips) and whole files (Skip).
	Skips report.Summary
	// CRDs are the CRDs among live objects: CRDs named on the command
	// line are listed as the cluster has them, from a catalogue of their
	// own, while custom resources are judged under the local CRD of their
	// kind, else the cluster's.
	CRDs *crd.Catalog
}

// NewCollection returns an empty Collection.
func NewCollection(sel apifields.Selector, notes func([]crd.Note) int) *Collection {
	return &Collection{Selector: sel, Notes: notes, CRDs: crd.NewCatalog(false)}
}

// Skip counts a file that is not manifests (input.Judging.Skipped).
func (c *Collection) Skip(reason string) { c.Skips.Skip(reason) }

// Add takes what one file gave.
func (c *Collection) Add(got *Objects) {
	c.Skips.Add(got.Skips)
	c.Unserved += c.Notes(got.Notes)
	c.Seen += got.Seen
	c.Matched = append(c.Matched, got.Matched...)
}

// Files takes what files collected in parallel gave (Collect's results,
// by index), in input order; the first error (an *ErrSelector) ends it.
// A nil result is a file that was skipped (Skip counts it).
func (c *Collection) Files(got []*Objects, errs []error) error {
	for i, g := range got {
		if errs[i] != nil {
			return errs[i]
		}
		if g != nil {
			c.Add(g)
		}
	}
	return nil
}

// Page collects a page of live objects, each rendered as a parsed file
// (cluster.Client.VisitFiles), judged under cat; the CRDs among them go
// to c.CRDs.
func (c *Collection) Page(cat *crd.Catalog) func(files []*source.File, _ [][]byte) error {
	return func(files []*source.File, _ [][]byte) error {
		for _, f := range files {
			c.CRDs.AddFound(crd.FindCRDs(f), crd.Cluster)
			got, err := Collect(cat, f, c.Selector)
			if err != nil {
				return err
			}
			c.Add(got)
		}
		return nil
	}
}

// Empty reports whether the files gave no custom resource at all: the
// command lists the CRDs' selectable fields instead.
func (c *Collection) Empty() bool {
	return len(c.Matched) == 0 && c.Seen == 0 && c.Unserved == 0
}
