package fields

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	apifields "k8s.io/apimachinery/pkg/fields"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/count"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/engine"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// Object is a custom resource as the server stores it on create, with the
// field set its selectors match.
type Object struct {
	Version *engine.Version
	Stored  *unstructured.Unstructured
	Set     apifields.Set
}

// Objects is what one file gives: the objects that match (all, without a
// selector), how many custom resources were judged, and notes for stderr
// (file:line:col: skipped: ...).
type Objects struct {
	Matched []Object
	Seen    int
	// Notes say why documents were left out, in document order: custom
	// resources whose kind the catalogue cannot serve among them.
	Notes []crd.Note
	// Skips counts the documents that are not custom resources (not
	// objects, built-in kinds, tool configuration), by reason, as check
	// counts them.
	Skips report.Summary
}

// ErrSelector is a selector the server refuses for a kind: it fails the
// whole list request.
type ErrSelector struct{ Err error }

func (e *ErrSelector) Error() string { return e.Err.Error() }
func (e *ErrSelector) Unwrap() error { return e.Err }

// Collect computes, for each custom resource of a file, what the server
// would store on create and its selectable fields' values, keeping those
// sel matches (sel nil keeps all). Objects the server would reject are
// kept with a note: their fields still have values.
func Collect(cat *crd.Catalog, f *source.File, sel apifields.Selector) (*Objects, error) {
	// The text's own problems, as prune says them: a document kubectl
	// cannot send is no object to list, and fails the run.
	out := &Objects{Skips: f.Skips(), Notes: crd.TextNotes(f)}
	for _, d := range f.Documents {
		class := cat.Classify(d)
		if class == crd.ClassCRD {
			continue
		}
		if class != crd.ClassCustomResource {
			// A built-in kind's selectors: kubectl crdlint fields KIND.
			out.Skips.Skip(class.Skip())
			continue
		}
		pos := fmt.Sprintf("%s:%d:%d", d.File, d.Root.Line, d.Root.Column)
		v, err := cat.LookupAt(crd.GVK(d), d.File)
		if err != nil {
			out.Notes = append(out.Notes, crd.Unserved(pos, err))
			continue
		}
		m, ok := d.TakeValue()
		if !ok {
			count.CRDecodes.Add(1)
			if err := utiljson.Unmarshal(d.JSON, &m); err != nil {
				continue
			}
		}
		ns := d.Object.Namespace
		if ns == "" {
			ns = crd.DefaultNamespace
		}
		vd := v.Create(m, ns)
		if vd.Object == nil {
			out.Notes = append(out.Notes, crd.Note{Pos: pos, Label: "error", Msg: fmt.Sprintf("the server cannot decode it: %v", vd.DecodeError)})
			continue
		}
		if len(vd.Errors) > 0 {
			out.Notes = append(out.Notes, crd.Note{Pos: pos, Label: "note", Msg: "the server would reject this object on create (" + report.Plural(len(vd.Errors), "error") + "; see kubectl crdlint check)"})
		}
		set, err := v.FieldSet(vd.Object)
		if err != nil {
			return nil, err
		}
		out.Seen++
		if sel != nil {
			s, err := ForVersion(sel, v)
			if err != nil {
				return nil, &ErrSelector{err}
			}
			if !s.Matches(set) {
				continue
			}
		}
		out.Matched = append(out.Matched, Object{Version: v, Stored: vd.Object, Set: set})
	}
	return out, nil
}
