package lint

import (
	"strings"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/engine"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// At is a finding about field of d, positioned (Document.Locate): for
// features whose verdicts come from elsewhere (pkg/upgrade) to position
// them as every other finding is. The server's note that CEL rules were
// not checked sums up the object's other errors: it is listed after them
// (Follows), as cr-cel-skipped is.
func At(d *source.Document, rule string, sev report.Severity, field, msg string) report.Finding {
	f := finding(d, rule, sev, field, msg)
	f.Follows = strings.Contains(msg, celSkippedNote)
	return f
}

// CRDUpdate positions the server's verdict on updating a CRD to the
// document d (crd.ValidateUpdate; def is d decoded, its schemas intact):
// each error in the user's notation with the rule ID check gives the same
// error on a create (crd-versions, crd-scope, crd-names, crd-cel, ...),
// the decoder's unknown fields and the warnings the update adds. The
// rules beyond the server are check's business, not the update's.
func (l *Linter) CRDUpdate(d *source.Document, def *crd.Definition, v *engine.CRDVerdict) []report.Finding {
	obj := def.Object()
	if obj == nil {
		v = &engine.CRDVerdict{DecodeError: def.DecodeError}
	}
	out, done := l.verdict(d, obj, v, "update")
	if done {
		return out
	}
	return dedupeFindings(out)
}
