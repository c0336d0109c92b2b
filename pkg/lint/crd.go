package lint

import (
	"fmt"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/engine"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/immutable"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// CRD lints one CustomResourceDefinition document: the server's verdict on
// create, positioned, then the warnings beyond the server. def is the
// document's CRD as decoded when it was collected; nil decodes it here.
func (l *Linter) CRD(d *source.Document, def *crd.Definition) []report.Finding {
	if _, v := d.GroupVersion(); v != "v1" {
		return []report.Finding{finding(d, RuleCRDAPIRemoved, report.Error, "apiVersion",
			fmt.Sprintf("no matches for kind \"CustomResourceDefinition\" in version %q: no supported Kubernetes release serves it%s; use apiextensions.k8s.io/v1", d.Object.APIVersion, removedNote(v)))}
	}
	if def == nil {
		def = crd.Decode(d.JSON)
	}
	v := def.Verdict(l.costs)
	obj := def.Object()
	out, done := l.verdict(d, obj, v, "create")
	if done {
		return out
	}
	out = append(out, beyondServer(d, obj, v)...)
	out = append(out, mutability(d, def)...)
	return dedupeFindings(out)
}

// verdict positions the server's verdict on a create or update (op) of
// the CRD document d, decoded as obj: decoding, a panic, unknown fields, each error with
// its rule ID, the server's warnings. done says the request stops before
// validation (a decoding error, or unknown fields under Strict): out is
// then final.
func (l *Linter) verdict(d *source.Document, obj *apiextensionsv1.CustomResourceDefinition, v *engine.CRDVerdict, op string) (out []report.Finding, done bool) {
	if v.DecodeError != nil {
		segs, _ := decodeValue(d.JSON, v.DecodeError)
		out = append(out, valueFinding(d, RuleCRDDecode, source.JoinPath(schemaBrackets(segs)),
			"CustomResourceDefinition in version \"v1\" cannot be handled as a CustomResourceDefinition: "+v.DecodeError.Error()))
		return out, true
	}
	if v.Panic != "" {
		out = append(out, finding(d, RuleCRDServerPanic, report.Error, "",
			"Internal error occurred: the API server's CRD validation panics on this object ("+v.Panic+"), so the "+op+" fails with 500 Internal Server Error"))
	}
	paths, messages := make([]string, len(v.Unknown)), make([]string, len(v.Unknown))
	for i, u := range v.Unknown {
		paths[i] = schemaField(d, quotedField(u))
		messages[i] = requote(u, paths[i])
	}
	unknown, refused := l.unknown(d, paths, messages)
	out = append(out, unknown...)
	if refused {
		// Strict field validation stops the request at decoding (400).
		return dedupeFindings(out), true
	}
	var costs map[string]uint64
	for _, e := range v.Errors {
		p, at, shared := translatePath(e.Field, len(obj.Spec.Versions))
		msg := translateText(body(e), len(obj.Spec.Versions))
		if shared > 1 {
			// The server checks a schema all versions share once: one
			// finding, at the first version, saying where else it is.
			msg += fmt.Sprintf(" (all %d versions share this %s)", shared, sharedWhat(e.Field))
		}
		if strings.Contains(msg, costContributed) {
			// Which of the rules that "contributed" costs the most is
			// what the user must know; the server keeps the estimates.
			if costs == nil {
				costs = l.ruleCosts(obj)
			}
			if c, ok := costs[p]; ok {
				msg += costShareHint(c)
			}
		}
		f := finding(d, classify(e, at), report.Error, at, msg)
		if p != at {
			f.Field = d.Resolve(p).Field()
		}
		if op == "create" && hasPrefix(p, "status.storedVersions") {
			// PrepareForCreate derives it from spec.versions: a
			// consequence of the error about the storage version, at its
			// place (translatePath) and listed after it (same rule, and
			// its field sorts after spec.versions). An update keeps the
			// live object's.
			f.Message += storedVersionsHint
		}
		out = append(out, f)
	}
	return append(out, serverWarnings(d, obj, v)...), false
}

// ruleCosts are the server's estimates of every CEL expression of the
// CRD, by v1 path: for a CRD the server rejects they are not kept in its
// verdict.
func (l *Linter) ruleCosts(obj *apiextensionsv1.CustomResourceDefinition) map[string]uint64 {
	out := map[string]uint64{}
	for _, c := range engine.CELCosts(obj, l.costs) {
		out[c.Field] = c.Cost
	}
	return out
}

// dedupeFindings drops repeated findings, as the server drops repeated
// errors from its aggregate (spec.version and spec.versions[0].name are the
// same field in the user's document).
func dedupeFindings(fs []report.Finding) []report.Finding {
	seen := make(map[report.Finding]bool, len(fs))
	out := fs[:0]
	for _, f := range fs {
		if !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	return out
}

func removedNote(version string) string {
	if version == "v1beta1" {
		return " (apiextensions.k8s.io/v1beta1 was removed in Kubernetes 1.22)"
	}
	return ""
}

// mutability checks the Immutable Fields design's markers, which the
// server's decoder drops, so they are read from the CRD as written.
func mutability(d *source.Document, def *crd.Definition) []report.Finding {
	if def.Markers == nil {
		return nil
	}
	problems, err := immutable.ValidateObject(def.Markers)
	if err != nil {
		return nil
	}
	var out []report.Finding
	for _, p := range problems {
		out = append(out, finding(d, RuleCRDMutability, report.Error, p.Path, p.Message))
	}
	if field := firstMarker(def.Markers); field != "" {
		out = append(out, finding(d, RuleCRDMutabilityUnenforced, report.Warning, field,
			"x-kubernetes-mutability and x-kubernetes-key-mutability are not known to any Kubernetes API server: they are dropped (an error under fieldValidation=Strict) and never enforced; `kubectl crdlint immutable` checks updates against them offline"))
	}
	return out
}

// firstMarker is the path of the first marker in the CRD's schemas.
func firstMarker(obj map[string]any) string {
	spec, _ := obj["spec"].(map[string]any)
	versions, _ := spec["versions"].([]any)
	for i, v := range versions {
		vm, _ := v.(map[string]any)
		sch, _ := vm["schema"].(map[string]any)
		root, _ := sch["openAPIV3Schema"].(map[string]any)
		if p := findMarker(root, fmt.Sprintf("spec.versions[%d].schema.openAPIV3Schema", i)); p != "" {
			return p
		}
	}
	return ""
}

func findMarker(s map[string]any, path string) string {
	if s == nil {
		return ""
	}
	for _, m := range []string{immutable.MutabilityExtension, immutable.KeyMutabilityExtension} {
		if _, ok := s[m]; ok {
			return path + "." + m
		}
	}
	if props, ok := s["properties"].(map[string]any); ok {
		for _, k := range sortedKeys(props) {
			if p := findMarker(asMap(props[k]), path+".properties["+k+"]"); p != "" {
				return p
			}
		}
	}
	if p := findMarker(asMap(s["items"]), path+".items"); p != "" {
		return p
	}
	return findMarker(asMap(s["additionalProperties"]), path+".additionalProperties")
}

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// Duplicates are the findings for the kinds two different CRDs of a run
// define, at the one the catalogue does not use.
func Duplicates(cat *crd.Catalog) []report.Finding {
	var out []report.Finding
	for _, d := range cat.Duplicates() {
		o := d.Dropped.Def.Origin
		if o == nil {
			continue
		}
		kept := d.Kept.Source
		if k := d.Kept.Def.Origin; k != nil {
			kept = k.String()
		}
		msg := fmt.Sprintf("this CRD is not used: %s defines the same kind with different content and judges its custom resources (%s)", kept, d.Why())
		if what := d.Judges(); what != "" {
			msg = fmt.Sprintf("this CRD judges only %s: %s defines the same kind with different content and judges the others (%s)", what, kept, d.Why())
		}
		out = append(out, report.Finding{
			Rule: RuleCRDDuplicate, Severity: report.Warning, Field: "metadata.name",
			File: o.File, Document: o.Document, Line: o.Line, Column: o.Column, Object: o.Object,
			Message: msg,
		})
	}
	return out
}
