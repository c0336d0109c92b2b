package lint

import (
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// At is a finding about field of d, positioned (Document.Locate): for
// commands whose verdicts come from elsewhere (kubectl crdlint upgrade)
// to position them as every other finding is.
func At(d *source.Document, rule string, sev report.Severity, field, msg string) report.Finding {
	return finding(d, rule, sev, field, msg)
}

// CRDUpdate positions the server's verdict on updating a CRD to the
// document d (crd.ValidateUpdate; def is d decoded, its schemas intact):
// each error in the user's notation with the rule ID check gives the same
// error on a create (crd-versions, crd-scope, crd-names, crd-cel, ...),
// the decoder's unknown fields and the warnings the update adds. The
// rules beyond the server are check's business, not the update's.
func (l *Linter) CRDUpdate(d *source.Document, def *crd.Definition, v *crd.CRDVerdict) []report.Finding {
	var out []report.Finding
	if v.DecodeError != nil {
		out = append(out, finding(d, RuleCRDDecode, report.Error, decodeField(v.DecodeError),
			"CustomResourceDefinition in version \"v1\" cannot be handled as a CustomResourceDefinition: "+v.DecodeError.Error()))
		return l.filter(out)
	}
	if v.Panic != "" {
		out = append(out, finding(d, RuleCRDServerPanic, report.Error, "",
			"Internal error occurred: the API server's CRD validation panics on this update ("+v.Panic+"), so it fails with 500 Internal Server Error"))
	}
	for _, u := range v.Unknown {
		out = append(out, l.adjust(finding(d, RuleUnknownField, report.Warning, quotedField(u), u)))
	}
	if l.opts.Strict && len(v.Unknown) > 0 {
		return l.filter(dedupeFindings(out))
	}
	versions := 0
	if def.V1 != nil {
		versions = len(def.V1.Spec.Versions)
	}
	for _, e := range v.Errors {
		for _, p := range translatePath(e.Field, versions) {
			out = append(out, finding(d, classify(e, p), report.Error, p, e.ErrorBody()))
		}
	}
	if def.V1 != nil {
		out = append(out, serverWarnings(d, def.V1, v)...)
	}
	return l.filter(dedupeFindings(out))
}
