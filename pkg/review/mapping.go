package review

import (
	"fmt"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
)

// mapping says where a rendered file's findings come from. A rendered
// kustomization's (-k) point at the file and line each object, or field,
// was written in (kustomize.Rendered.Map), keeping the rendered position
// in Via, and so are the objects the file lists as judged (Checked). On
// a helm template stream, each finding names the template its document
// came from (its "# Source:" comment) in Via.
type mapping struct{ perFile }

func (mapping) file(_ *Reviewer, f *File) []report.Finding {
	switch {
	case f.Kustomization != nil:
		k := f.Kustomization
		for i, x := range f.Findings {
			m := k.Map(x)
			if m.File != x.File {
				m.Via = fmt.Sprintf("%s:%d:%d", x.File, x.Line, x.Column)
			}
			f.Findings[i] = m
		}
		for i, c := range f.Checked {
			m := k.Map(report.Finding{File: c.File, Document: c.Document, Object: c.Object})
			f.Checked[i].File, f.Checked[i].Document = m.File, m.Document
		}
	case f.Comments != nil && f.Comments.helm.Found():
		// The sources count documents from the text's first.
		for i := range f.Findings {
			if p := f.Comments.helm.Path(f.Findings[i].Document - f.Base); p != "" {
				f.Findings[i].Via = p
			}
		}
	}
	return nil
}
