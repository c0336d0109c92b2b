package prune

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/count"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// Options say what the server does besides pruning.
type Options struct {
	// Defaults applies the schemas' defaults, as the server does after
	// pruning.
	Defaults bool
	// JSON: the file is JSON (see IsJSON) and is rewritten as JSON.
	JSON bool
}

// Result is one file's outcome.
type Result struct {
	Path string
	// Data is the file's text as read (for a file with a byte order
	// mark, the UTF-8 kubectl reads: source.MarkedText); Out is it
	// rewritten (Data when nothing changes or nothing could be pruned).
	Data, Out []byte
	// Raw is the file's bytes, whose encoding a rewrite keeps.
	Raw []byte
	// Docs are the custom resources pruned, with their stored objects.
	Docs []Doc
	// Texts are Out's documents' texts, by index, as source.File.Texts.
	Texts [][]byte
	// JSON: the input is JSON, and so is the output.
	JSON bool
	// Dropped counts the fields pruned, Added those defaulted (with
	// Options.Defaults), Objects the objects with either.
	Dropped, Added, Objects int
	// Notes say why documents were left out, in document order: custom
	// resources whose kind the catalogue cannot serve among them.
	Notes []crd.Note
	// Skips counts the documents that are not custom resources (not
	// objects, built-in kinds, tool configuration), by reason, as check
	// counts them.
	Skips report.Summary
	// Err is why the file could not be rewritten.
	Err error
}

// File prunes the custom resources of a parsed file (CRD documents are
// left alone) against the catalogue, each document decoded once, and
// rewrites the text. data is the file's text.
func File(cat *crd.Catalog, f *source.File, data []byte, opts Options) *Result {
	raw := data
	data = source.MarkedText(data)
	r := &Result{Path: f.Path, Data: data, Raw: raw, JSON: opts.JSON}
	// The text's own problems: an error leaves a document out (kubectl
	// cannot send it); warnings (repeated keys aside, which pruning
	// resolves as kubectl does) are said and change nothing.
	r.Notes = crd.TextNotes(f)
	r.Skips = f.Skips()
	for _, d := range f.Documents {
		class := cat.Classify(d)
		if class == crd.ClassCRD {
			continue
		}
		if class != crd.ClassCustomResource {
			r.Skips.Skip(class.Skip())
			continue
		}
		pos := fmt.Sprintf("%s:%d:%d", d.File, d.Root.Line, d.Root.Column)
		gvk := crd.GVK(d)
		v, err := cat.LookupAt(gvk, d.File)
		if err != nil {
			r.Notes = append(r.Notes, crd.Unserved(pos, err))
			continue
		}
		obj, ok := d.TakeValue()
		if !ok {
			count.CRDecodes.Add(1)
			if err := utiljson.Unmarshal(d.JSON, &obj); err != nil {
				r.Notes = append(r.Notes, crd.Note{Pos: pos, Label: "error", Msg: err.Error()})
				continue
			}
		}
		orig := runtime.DeepCopyJSON(obj)
		dropped, err := v.Prune(obj, opts.Defaults)
		if err != nil {
			r.Notes = append(r.Notes, crd.Note{Pos: pos, Label: "error", Msg: fmt.Sprintf("%s in version %q cannot be handled as a %s: %v", gvk.Kind, gvk.Version, gvk.Kind, err)})
			continue
		}
		// The object goes to etcd in the storage version and comes back
		// converted: under the None strategy a field the request's
		// version has and the storage version lacks is gone, and the
		// storage version's defaults come back where the request's
		// version has their fields (crd.Entry.RoundTrip, the server's
		// schemaCoercingConverter and storage decoder).
		if e := cat.EntryAt(gvk, d.File); e != nil && e.CRD() != nil && e.StorageVersion() != gvk.Version {
			if _, err := e.RoundTrip(obj, gvk.Version, gvk.Version, opts.Defaults); errors.Is(err, crd.ErrWebhookConversion) {
				r.Notes = append(r.Notes, crd.Note{Pos: pos, Label: "warning", Msg: fmt.Sprintf("pruned by version %s's schema only: the server stores it as %s through the CRD's conversion webhook, which crdlint cannot call", gvk.Version, e.StorageVersion())})
			} else if err != nil {
				r.Notes = append(r.Notes, crd.Note{Pos: pos, Label: "error", Msg: fmt.Sprintf("%s %s cannot be stored offline: %v", gvk.Kind, gvk.Version, err)})
				continue
			}
		}
		// Count what goes, not only what the server reports: nulls and
		// empty metadata maps vanish silently too.
		n, added := max(len(dropped), Removed(orig, obj)), Removed(obj, orig)
		if n > 0 || added > 0 {
			r.Dropped += n
			r.Added += added
			r.Objects++
		}
		r.Docs = append(r.Docs, Doc{Document: d, Original: orig, Object: obj})
	}
	switch {
	case len(r.Docs) == 0:
		r.Out, r.Texts = data, f.Texts
	case r.JSON:
		r.Out, r.Err = rewriteJSON(f, r.Docs)
	default:
		r.Out, r.Texts, r.Err = rewrite(f, data, r.Docs)
	}
	return r
}

// IsJSON reports whether a path names a JSON file, whose output is JSON.
func IsJSON(p string) bool { return strings.EqualFold(filepath.Ext(p), ".json") }

// rewriteJSON renders a JSON file's pruned object as JSON in the input's
// key order. A JSON file holds one object; a List of them is rendered
// whole with its items replaced.
func rewriteJSON(f *source.File, docs []Doc) ([]byte, error) {
	if len(docs) == 1 && docs[0].Document.Item < 0 && f.Count == 1 {
		b, err := OrderedJSON(docs[0].Document.Root, docs[0].Object)
		return append(b, '\n'), err
	}
	return nil, fmt.Errorf("%s: rewriting a JSON file with several objects or a List is not supported; use -o json", f.Path)
}
